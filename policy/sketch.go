package policy

import "math/bits"

// sketchRows is the depth of the count-min sketch.
const sketchRows = 4

// cmSketch estimates access frequencies for TinyLFU admission: a count-min
// sketch of 4-bit counters (sketchRows rows of width w, a power of two at
// least the capacity in blocks) behind a doorkeeper, a one-hash-per-half
// Bloom filter of 8w bits that absorbs the first access of each block so
// one-hit wonders never reach the counters. Every period increments
// (period = sample × capacity) the sketch ages: counters are halved and the
// doorkeeper cleared, so old popularity fades (Einziger et al., "TinyLFU",
// ACM ToS 2017). Ageing is O(w), once per period ≥ w increments, so
// increment is amortised O(1); estimate is O(1).
type cmSketch struct {
	table  []uint64 // 16 counters per word, row r at [r*w, (r+1)*w)
	door   []uint64
	width  uint64 // counters per row, a power of two
	added  int
	period int
	sample int
}

// newCMSketch returns a sketch sized for capacity blocks.
func newCMSketch(capacity, sample int) cmSketch {
	w := uint64(16)
	for w < uint64(capacity) {
		w <<= 1
	}
	return cmSketch{
		table:  make([]uint64, sketchRows*w/16),
		door:   make([]uint64, w*8/64),
		width:  w,
		period: sample * max(capacity, 1),
		sample: sample,
	}
}

// fits reports whether the sketch was sized for at least capacity blocks.
func (s *cmSketch) fits(capacity int) bool { return s.width >= uint64(capacity) }

func sketchHash(id BlockID) uint64 {
	// splitmix64 finaliser.
	z := id + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// slot returns the word and shift of id's counter in row r.
func (s *cmSketch) slot(h uint64, r int) (int, uint) {
	col := bits.RotateLeft64(h, 16*r) & (s.width - 1)
	pos := uint64(r)*s.width + col
	return int(pos / 16), uint(pos%16) * 4
}

func (s *cmSketch) doorBits(h uint64) (uint64, uint64) {
	n := uint64(len(s.door)) * 64
	return (h >> 7) % n, (h >> 37) % n
}

func (s *cmSketch) inDoor(h uint64) bool {
	a, b := s.doorBits(h)
	return s.door[a/64]&(1<<(a%64)) != 0 && s.door[b/64]&(1<<(b%64)) != 0
}

// increment records one access to id.
func (s *cmSketch) increment(id BlockID) {
	h := sketchHash(id)
	if !s.inDoor(h) {
		a, b := s.doorBits(h)
		s.door[a/64] |= 1 << (a % 64)
		s.door[b/64] |= 1 << (b % 64)
	} else {
		// Conservative update: raise only the counters at the minimum.
		m := s.count(h)
		if m < 15 {
			for r := range sketchRows {
				w, sh := s.slot(h, r)
				if (s.table[w]>>sh)&0xf == m {
					s.table[w] += 1 << sh
				}
			}
		}
	}
	s.added++
	if s.added >= s.period {
		s.age()
	}
}

// count returns the minimum counter of h.
func (s *cmSketch) count(h uint64) uint64 {
	m := uint64(15)
	for r := range sketchRows {
		w, sh := s.slot(h, r)
		m = min(m, (s.table[w]>>sh)&0xf)
	}
	return m
}

// estimate returns the estimated recent accesses of id.
func (s *cmSketch) estimate(id BlockID) uint64 {
	h := sketchHash(id)
	n := s.count(h)
	if s.inDoor(h) {
		n++
	}
	return n
}

// age halves every counter and clears the doorkeeper.
func (s *cmSketch) age() {
	for i, w := range s.table {
		s.table[i] = (w >> 1) & 0x7777777777777777
	}
	clear(s.door)
	s.added /= 2
}
