package plan

import (
	"math"
	"math/bits"
)

// Ranking by radix. A plan at 10M blocks ranks about 100K candidates,
// which a comparison sort orders in 17 passes over them with a
// comparison per key and pass (7 to 9 ms of a 25 ms plan); a radix sort
// orders them in one or two passes. A key's rank order is the order of
// three words, compared as unsigned integers (rankKey.word): its class,
// its heat, its ID. Of each word, only the bits in which some keys of a
// part differ tell them apart (the range from the highest to the lowest
// such bit); rankBest partitions the keys by the first radix bits of
// those ranges, in word order, which orders the parts, and ranks each
// part the same way (its keys share the bits taken), down to parts of
// radixMin keys, which the comparison sort orders. With few classes and
// heats and IDs that differ in their low 24 bits (a 10M-block epoch), one
// partition of 16 bits leaves parts of a key or two.

// radixMin is the part below which the comparison sort takes over, and
// radixMaxBits the widest digit (a part's digit has about as many bits as
// its number of keys needs).
const (
	radixMin     = 64
	radixMaxBits = 16
)

// radixScratch is what rankBest partitions with: a copy of the keys, the
// digit of each, and the count of each digit.
type radixScratch struct {
	keys   []rankKey
	digits []uint16
	counts []int32
}

// grow makes s hold scratch for n keys: none for the comparison sort,
// and counts for the widest digit of n keys.
func (s *radixScratch) grow(n int) {
	if n <= radixMin {
		return
	}
	if cap(s.keys) < n {
		s.keys = make([]rankKey, n)
		s.digits = make([]uint16, n)
	}
	if w := 1 << radixWidth(n); len(s.counts) < w {
		s.counts = make([]int32, w)
	}
}

// radixWidth is the bits of the digit that partitions n keys: about as
// many as n needs, up to radixMaxBits.
func radixWidth(n int) int { return min(bits.Len(uint(n)), radixMaxBits) }

// words returns k's radix key: three words that, compared in order as
// unsigned integers, rank k as compareRank does (the higher class first,
// then the hotter, then the lower ID).
func (k *rankKey) words() [3]uint64 {
	return [3]uint64{uint64(^k.class), ^floatKey(k.heat), k.id}
}

// floatKey maps f to an integer of the same order: the higher f, the
// higher the key (NaN aside); 0 and -0, which compare equal, have one key.
func floatKey(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	u := math.Float64bits(f)
	if u>>63 != 0 {
		return ^u
	}
	return u | 1<<63
}

// digit says which bits of a key's words make its digit: of word w, the
// bits from shift[w] under mask[w] (none if mask[w] is 0), placed at
// at[w] of the digit.
type digit struct {
	shift, at [3]uint
	mask      [3]uint64
}

// of returns k's digit.
func (d *digit) of(k *rankKey) int {
	w := k.words()
	x := (w[0]>>d.shift[0]&d.mask[0])<<d.at[0] |
		(w[1]>>d.shift[1]&d.mask[1])<<d.at[1] |
		(w[2]>>d.shift[2]&d.mask[2])<<d.at[2]
	return int(x)
}

// digitOf returns the digit of at most width bits that partitions keys
// by the first bits in which they differ, and its width (0 if all keys
// are equal).
func digitOf(keys []rankKey, width int) (digit, int) {
	var diff [3]uint64
	first := keys[0].words()
	for i := range keys {
		w := keys[i].words()
		diff[0] |= w[0] ^ first[0]
		diff[1] |= w[1] ^ first[1]
		diff[2] |= w[2] ^ first[2]
	}
	var d digit
	left := width
	for w := range diff {
		if diff[w] == 0 || left == 0 {
			continue
		}
		hi, lo := bits.Len64(diff[w]), bits.TrailingZeros64(diff[w])
		take := min(hi-lo, left)
		left -= take
		d.shift[w], d.mask[w], d.at[w] = uint(hi-take), 1<<take-1, uint(left)
	}
	used := width - left
	for w := range d.at {
		d.at[w] -= uint(left) // the digit is the bits taken, no wider
	}
	return d, used
}

// rankBest puts the k best of keys (all of them if k >= len(keys)) first
// and in rank order, ranking only the parts of the rest that hold one of
// them. s is scratch for len(keys) keys.
func rankBest(keys []rankKey, s *radixScratch, k int) {
	n := len(keys)
	if n <= radixMin {
		compareRankBest(keys, k) // s holds nothing
		return
	}
	radixRank(keys, s.keys[:n], s.digits[:n], s.counts, k)
}

// radixRank is rankBest with the scratch in tmp and digits (of
// len(keys)) and counts. Each key's digit is computed once: digits holds
// them in the keys' order, then in the order of the parts.
func radixRank(keys, tmp []rankKey, digits []uint16, counts []int32, k int) {
	if len(keys) <= radixMin {
		compareRankBest(keys, k)
		return
	}
	d, width := digitOf(keys, radixWidth(len(keys)))
	if width == 0 {
		return // all equal
	}
	counts = counts[:1<<width]
	clear(counts)
	copy(tmp, keys)
	for i := range tmp {
		v := d.of(&tmp[i])
		digits[i] = uint16(v)
		counts[v]++
	}
	var at int32
	for v, n := range counts {
		counts[v], at = at, at+n // the part's start
	}
	for i := range tmp {
		v := digits[i]
		keys[counts[v]] = tmp[i]
		counts[v]++
	}
	at = 0
	for v, end := range counts { // now the part's end
		for i := at; i < end; i++ {
			digits[i] = uint16(v)
		}
		at = end
	}
	// The parts are the runs of equal digits. Ranking one uses the
	// scratch of its own keys only (and counts, done with here).
	for lo := 0; lo < len(keys) && lo < k; {
		hi := lo + 1
		for hi < len(keys) && digits[hi] == digits[lo] {
			hi++
		}
		switch {
		case hi-lo <= 1:
		case hi-lo <= radixMin:
			compareRankBest(keys[lo:hi], k-lo)
		default:
			radixRank(keys[lo:hi], tmp[lo:hi], digits[lo:hi], counts, k-lo)
		}
		lo = hi
	}
}

// compareRankBest is rankBest by comparisons.
func compareRankBest(keys []rankKey, k int) {
	if k < len(keys) {
		selectBest(keys, k)
	} else {
		k = len(keys)
	}
	sortKeys(keys[:k], 2*bits.Len(uint(k)))
}
