package trace

import "math/bits"

// rng is a splitmix64 generator. The workloads use it instead of math/rand
// so that a seed yields the same trace on every Go release.
type rng struct{ s uint64 }

func newRNG(seed int64, stream uint64) *rng {
	r := &rng{s: uint64(seed)*0x9e3779b97f4a7c15 ^ stream*0xd1b54a32d192ed03}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// mix64 is splitmix64's finaliser: a bijective hash of x.
func mix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// intn returns a uniform int in [0, n) for n > 0 (Lemire's multiply-shift;
// the bias is below 2^-32 for the n used here).
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// float returns a uniform float64 in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// geometric returns k >= 0 with P(k) = p (1-p)^k.
func (r *rng) geometric(p float64) int {
	k := 0
	for r.float() >= p && k < 1<<20 {
		k++
	}
	return k
}
