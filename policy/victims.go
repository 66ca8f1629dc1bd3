package policy

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// SeqCandidate is a sequence whose KV blocks may be evicted together: the
// victim-selection shape of seed 002 (a serving engine's KV pool asks which
// whole sequences to drop to free a number of blocks).
type SeqCandidate struct {
	Seq        uint64    // sequence (request) ID
	Blocks     []BlockID // blocks the sequence holds
	LastAccess Time      // time of the sequence's last access
	Accesses   int64     // accesses so far
	Priority   Priority  // 0 low, 1 normal, 2 high
	Pinned     bool      // never evicted
	Lifetime   float64   // estimated remaining lifetime; <= 0 unknown
	SeqLen     int32     // current length
	MaxLen     int32     // maximum length; 0 unknown
}

// SequenceOrders lists the orders SelectSequences accepts, as seed 002's
// strategies: lru (least recently accessed first), lfu (fewest accesses,
// then least recent), qos_aware (lowest priority, then least recent) and
// predictive (shortest known remaining lifetime, then highest completion
// ratio SeqLen/MaxLen, then least recent).
var SequenceOrders = []string{"lfu", "lru", "predictive", "qos_aware"}

// seqKey orders one candidate: smaller is evicted first. Keys are encoded
// as unsigned integers so that comparing them is cheap.
type seqKey struct {
	hi, lo uint64
	idx    int32 // index in the candidates; the final tie-break
	blocks int32 // blocks the candidate holds
}

func (a *seqKey) less(b *seqKey) bool {
	if a.hi != b.hi {
		return a.hi < b.hi
	}
	if a.lo != b.lo {
		return a.lo < b.lo
	}
	return a.idx < b.idx
}

// ordInt maps int64 to uint64 preserving order.
func ordInt(x int64) uint64 { return uint64(x) ^ 1<<63 }

// ordFloat maps float64 to uint64 preserving order (NaN excluded).
func ordFloat(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// Sequence orders, resolved once per call.
const (
	seqByLRU = iota
	seqByLFU
	seqByQoS
	seqByPredictive
)

func parseSeqOrder(by string) (int, bool) {
	switch by {
	case "lru":
		return seqByLRU, true
	case "lfu":
		return seqByLFU, true
	case "qos_aware":
		return seqByQoS, true
	case "predictive":
		return seqByPredictive, true
	}
	return 0, false
}

// SelectSequences returns the IDs of the sequences to evict, in eviction
// order, so that their blocks number at least need: it skips pinned
// candidates, orders the others by the named order (see SequenceOrders)
// and takes them greedily until enough blocks are freed, as seed 002's
// select_victims does. Ties keep the candidates' order. If the unpinned
// candidates hold fewer than need blocks, all of them are returned with an
// error wrapping ErrNoRoom; an unknown order returns ErrUnknownPolicy.
//
// It runs in O(n + n' log k) for n candidates, k sequences chosen and n'
// candidates that beat the worst chosen so far when they are met (about
// k log n on random input): see SeqSelector, which callers that select
// repeatedly can keep to reuse its memory.
func SelectSequences(cands []SeqCandidate, need int, by string) ([]uint64, error) {
	s := selectorPool.Get().(*SeqSelector)
	defer selectorPool.Put(s)
	return s.Select(nil, cands, need, by)
}

var selectorPool = sync.Pool{New: func() any { return new(SeqSelector) }}

// SeqSelector selects sequences to evict like SelectSequences, keeping its
// working memory between calls: a steady caller allocates nothing but the
// result, and nothing when it passes a dst with room. The zero value is
// ready to use; a SeqSelector is not safe for concurrent use.
//
// It makes one pass over the candidates and keeps, in a max-heap, the
// shortest prefix of the eviction order seen so far that frees need
// blocks: a candidate that does not beat the heap's worst is rejected with
// one comparison, one that does replaces the worst entries it makes
// unnecessary. No candidate key is stored beyond the heap.
type SeqSelector struct {
	h   []seqKey // max-heap: h[0] is the last sequence to evict
	sum int      // blocks in h
}

// Select appends to dst the sequences to evict (see SelectSequences) and
// returns it.
func (s *SeqSelector) Select(dst []uint64, cands []SeqCandidate, need int, by string) ([]uint64, error) {
	if need <= 0 {
		return dst, nil
	}
	order, ok := parseSeqOrder(by)
	if !ok {
		return dst, fmt.Errorf("selecting sequences by %q: %w (want one of %v)", by, ErrUnknownPolicy, SequenceOrders)
	}
	s.h, s.sum = s.h[:0], 0
	// One loop per order keeps the key computation out of a switch.
	switch order {
	case seqByLRU:
		for i := range cands {
			if c := &cands[i]; !c.Pinned {
				s.offer(seqKey{hi: ordInt(c.LastAccess), idx: int32(i), blocks: int32(len(c.Blocks))}, need)
			}
		}
	case seqByLFU:
		for i := range cands {
			if c := &cands[i]; !c.Pinned {
				s.offer(seqKey{hi: ordInt(c.Accesses), lo: ordInt(c.LastAccess), idx: int32(i),
					blocks: int32(len(c.Blocks))}, need)
			}
		}
	case seqByQoS:
		for i := range cands {
			if c := &cands[i]; !c.Pinned {
				s.offer(seqKey{hi: uint64(c.Priority), lo: ordInt(c.LastAccess), idx: int32(i),
					blocks: int32(len(c.Blocks))}, need)
			}
		}
	case seqByPredictive:
		for i := range cands {
			if c := &cands[i]; !c.Pinned {
				s.offer(seqKey{hi: predictiveKey(c), lo: ordInt(c.LastAccess), idx: int32(i),
					blocks: int32(len(c.Blocks))}, need)
			}
		}
	}
	// Heap-sort the chosen in place: popping the worst fills from the end.
	h := s.h
	for n := len(h) - 1; n > 0; n-- {
		h[0], h[n] = h[n], h[0]
		seqKeyDown(h[:n], 0)
	}
	dst = slices.Grow(dst, len(h))
	for i := range h {
		dst = append(dst, cands[h[i].idx].Seq)
	}
	if s.sum < need {
		return dst, fmt.Errorf("selecting sequences by %s: %d unpinned blocks of %d needed: %w",
			by, s.sum, need, ErrNoRoom)
	}
	return dst, nil
}

// offer considers candidate k: one comparison of the keys' first words
// rejects most candidates that cannot beat the worst chosen so far; insert
// decides the others. Small enough to be inlined in the loops.
func (s *SeqSelector) offer(k seqKey, need int) {
	if s.sum < need || k.hi <= s.h[0].hi {
		s.insert(k, need)
	}
}

// insert adds candidate k if it beats the worst in h or h frees fewer
// than need blocks. Invariant: h holds the first entries, in the eviction
// order, of the candidates seen, and as few as free need blocks (all of
// them while they free fewer); the loops over the candidates reject the
// others with one comparison.
func (s *SeqSelector) insert(k seqKey, need int) {
	if s.sum >= need && !k.less(&s.h[0]) {
		return
	}
	s.h = append(s.h, k)
	s.sum += int(k.blocks)
	seqKeyUp(s.h, len(s.h)-1)
	// Drop the worst while the others still free need blocks.
	for s.sum-int(s.h[0].blocks) >= need {
		s.sum -= int(s.h[0].blocks)
		last := len(s.h) - 1
		s.h[0] = s.h[last]
		s.h = s.h[:last]
		seqKeyDown(s.h, 0)
	}
}

// seqKeyUp and seqKeyDown keep a max-heap (the worst key at the root).
func seqKeyUp(h []seqKey, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[p].less(&h[i]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func seqKeyDown(h []seqKey, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[l].less(&h[r]) {
			c = r
		}
		if !h[i].less(&h[c]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// predictiveKey is predictive's rank in the top two bits over the order of
// its key (remaining lifetime, or minus the completion ratio) without its
// two lowest bits.
func predictiveKey(c *SeqCandidate) uint64 {
	rank, key := uint64(predRecency), 0.0
	switch {
	case c.Lifetime > 0 && !math.IsNaN(c.Lifetime):
		rank, key = uint64(predLifetime), c.Lifetime
	case c.MaxLen > 0:
		rank, key = uint64(predCompletion), -float64(c.SeqLen)/float64(c.MaxLen)
	}
	return rank<<62 | ordFloat(key)>>2
}
