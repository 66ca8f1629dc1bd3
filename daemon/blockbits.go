package daemon

import "math/bits"

// Per-block state that costs nothing until a block is touched (issue 13:
// registration costs in proportion to regions, not blocks). A region's
// per-block arrays are kept in chunks of chunkLen blocks, allocated on
// the first write to one of their blocks: a nil chunk says that no block
// of it was materialised (its slot directory) or read (its heat). Only
// the tiers are allocated at registration, one bit a block. A region of
// 1Mi blocks costs 128 KiB of tiers and 16 KiB of chunk pointers until
// its blocks are touched, where a slot, a tier byte and a heat cost it 9
// bytes a block before.

// chunkShift is log2 of chunkLen, the blocks of a chunk.
const (
	chunkShift = 10
	chunkLen   = 1 << chunkShift
	chunkMask  = chunkLen - 1
)

// chunksOf is the number of chunks of n blocks.
func chunksOf(n int) int { return (n + chunkLen - 1) >> chunkShift }

// tierBits holds the tier of each block of a region, one bit a block
// (set: fast). The bits past the last block are clear.
type tierBits []uint64

// newTierBits returns the tiers of n blocks, every one fast if fast.
func newTierBits(n int, fast bool) tierBits {
	t := make(tierBits, (n+63)/64)
	if fast {
		for w := range t {
			t[w] = ^uint64(0)
		}
		if r := n % 64; r != 0 {
			t[len(t)-1] = 1<<r - 1
		}
	}
	return t
}

// load sets the tiers of the first len(fast) blocks from fast (as read
// at registration), a word of 64 blocks at a time; the others keep
// theirs. fast has at most a bit for each block of t.
func (t tierBits) load(fast []bool) {
	for w := range (len(fast) + 63) / 64 {
		lo := w * 64
		n := min(64, len(fast)-lo)
		word := t[w] &^ (^uint64(0) >> (64 - n)) // the blocks past fast keep theirs
		for j, f := range fast[lo : lo+n] {
			if f {
				word |= 1 << j
			}
		}
		t[w] = word
	}
}

// get reports whether block i is fast.
func (t tierBits) get(i int) bool { return t[i>>6]&(1<<(i&63)) != 0 }

// set records block i's tier, fast if fast.
func (t tierBits) set(i int, fast bool) {
	if fast {
		t[i>>6] |= 1 << (i & 63)
	} else {
		t[i>>6] &^= 1 << (i & 63)
	}
}

// count is the number of fast blocks among [lo, hi).
func (t tierBits) count(lo, hi int) int {
	if lo >= hi {
		return 0
	}
	first, last := lo>>6, (hi-1)>>6
	head := ^uint64(0) << (lo & 63)
	tail := ^uint64(0) >> (63 - ((hi - 1) & 63))
	if first == last {
		return bits.OnesCount64(t[first] & head & tail)
	}
	n := bits.OnesCount64(t[first]&head) + bits.OnesCount64(t[last]&tail)
	for _, w := range t[first+1 : last] {
		n += bits.OnesCount64(w)
	}
	return n
}

// next is the first fast block among [lo, hi), or hi if none is.
func (t tierBits) next(lo, hi int) int {
	for lo < hi {
		w := t[lo>>6] >> (lo & 63)
		if w != 0 {
			return min(lo+bits.TrailingZeros64(w), hi)
		}
		lo = (lo | 63) + 1
	}
	return hi
}

// heatChunks holds the view heat of a region's blocks (placement views:
// access counts decayed with viewHeatHalfLife) in chunks allocated at the
// first access to one of their blocks; a nil chunk's blocks have heat 0.
type heatChunks []*[chunkLen]float32

// at is block i's heat.
func (h heatChunks) at(i int) float32 {
	if c := h[i>>chunkShift]; c != nil {
		return c[i&chunkMask]
	}
	return 0
}

// add adds v to block i's heat.
func (h heatChunks) add(i int, v float32) {
	c := h[i>>chunkShift]
	if c == nil {
		c = new([chunkLen]float32)
		h[i>>chunkShift] = c
	}
	c[i&chunkMask] += v
}

// appendRange appends the heat of blocks [lo, hi) to dst.
func (h heatChunks) appendRange(dst []float32, lo, hi int) []float32 {
	for i := lo; i < hi; i++ {
		dst = append(dst, h.at(i))
	}
	return dst
}

// decay multiplies every heat by f (the chunks allocated only).
func (h heatChunks) decay(f float32) {
	for _, c := range h {
		if c != nil {
			for i := range c {
				c[i] *= f
			}
		}
	}
}
