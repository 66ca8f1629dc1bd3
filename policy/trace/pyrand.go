package trace

import (
	"math"
	"math/bits"
	"sort"
)

// pyRandom reproduces the draws of CPython's random.Random: the MT19937
// generator seeded the way random.seed(int) seeds it, and the algorithms
// of random(), getrandbits(), randrange(), randint(), choice(), sample()
// and choices() on top of it. The lab workloads (labwl.go) use it so that
// a seed yields the lab's trace exactly. Only non-negative seeds below
// 2^64 and bounds below 2^32 are supported, which is all the lab uses.
type pyRandom struct {
	mt  [624]uint32
	idx int
}

// newPyRandom seeds like random.Random(seed): init_by_array over the
// 32-bit words of |seed|, least significant first (one word, 0, for 0).
func newPyRandom(seed uint64) *pyRandom {
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < len(r.mt); i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = len(r.mt)
}

func (r *pyRandom) initByArray(key []uint32) {
	const n = len(r.mt)
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(n, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i, j = i+1, j+1
		if i >= n {
			r.mt[0], i = r.mt[n-1], 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0], i = r.mt[n-1], 1
		}
	}
	r.mt[0] = 0x80000000
}

// uint32 is genrand_uint32: the next tempered MT19937 output.
func (r *pyRandom) uint32() uint32 {
	const n, m = 624, 397
	if r.idx >= n {
		for k := range n {
			y := r.mt[k]&0x80000000 | r.mt[(k+1)%n]&0x7fffffff
			v := r.mt[(k+m)%n] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[k] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// random is random.random(): 53 bits from two outputs, in [0, 1).
func (r *pyRandom) random() float64 {
	a, b := r.uint32()>>5, r.uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// getrandbits is random.getrandbits(k) for 0 < k <= 32.
func (r *pyRandom) getrandbits(k int) uint32 { return r.uint32() >> (32 - k) }

// randbelow is Random._randbelow_with_getrandbits: k = n.bit_length()
// bits, drawn again until below n. n must be in [1, 2^32).
func (r *pyRandom) randbelow(n int) int {
	k := bits.Len(uint(n))
	v := r.getrandbits(k)
	for int(v) >= n {
		v = r.getrandbits(k)
	}
	return int(v)
}

// randrange is random.randrange(start, stop) for start < stop.
func (r *pyRandom) randrange(start, stop int) int { return start + r.randbelow(stop-start) }

// randint is random.randint(a, b): a value in [a, b].
func (r *pyRandom) randint(a, b int) int { return r.randrange(a, b+1) }

// choice is the index random.choice picks from a sequence of length n.
func (r *pyRandom) choice(n int) int { return r.randbelow(n) }

// sample is the indices random.sample(range(n), k) picks, in order: a
// pool swap when n is small against k, rejection from a set otherwise.
func (r *pyRandom) sample(n, k int) []int {
	out := make([]int, k)
	setsize := 21
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := range k {
			j := r.randbelow(n - i)
			out[i], pool[j] = pool[j], pool[n-i-1]
		}
		return out
	}
	seen := map[int]bool{}
	for i := range k {
		j := r.randbelow(n)
		for seen[j] {
			j = r.randbelow(n)
		}
		seen[j], out[i] = true, j
	}
	return out
}

// choicesUniform is the index random.choices(seq) picks (no weights):
// floor(random() * n).
func (r *pyRandom) choicesUniform(n int) int { return int(math.Floor(r.random() * float64(n))) }

// choicesCum is the index random.choices(seq, cum_weights=cum) picks:
// bisect_right(cum, random() * total, 0, n-1).
func (r *pyRandom) choicesCum(cum []float64) int {
	x := r.random() * (cum[len(cum)-1] + 0.0)
	hi := len(cum) - 1
	return sort.Search(hi, func(i int) bool { return cum[i] > x })
}
