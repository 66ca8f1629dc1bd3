package policy

import (
	"fmt"
	"math"
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

var seqKeyPool = sync.Pool{New: func() any { return new([]seqKey) }}

// SelectSequences returns the IDs of the sequences to evict, in eviction
// order, so that their blocks number at least need: it skips pinned
// candidates, orders the others by the named order (see SequenceOrders)
// and takes them greedily until enough blocks are freed, as seed 002's
// select_victims does. Ties keep the candidates' order. If the unpinned
// candidates hold fewer than need blocks, all of them are returned with an
// error wrapping ErrNoRoom; an unknown order returns ErrUnknownPolicy.
//
// It runs in O(n + k log n) for n candidates and k sequences chosen: keys
// go into a binary heap built in linear time and only the victims are
// popped.
func SelectSequences(cands []SeqCandidate, need int, by string) ([]uint64, error) {
	if need <= 0 {
		return nil, nil
	}
	if !validOrder(by) {
		return nil, fmt.Errorf("selecting sequences by %q: %w (want one of %v)", by, ErrUnknownPolicy, SequenceOrders)
	}
	bufp := seqKeyPool.Get().(*[]seqKey)
	defer seqKeyPool.Put(bufp)
	h := appendSeqKeys((*bufp)[:0], cands, by)
	*bufp = h
	for i := len(h)/2 - 1; i >= 0; i-- {
		seqKeyDown(h, i)
	}
	var out []uint64
	freed := 0
	for len(h) > 0 && freed < need {
		c := &cands[h[0].idx]
		out = append(out, c.Seq)
		freed += len(c.Blocks)
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		seqKeyDown(h, 0)
	}
	if freed < need {
		return out, fmt.Errorf("selecting sequences by %s: %d unpinned blocks of %d needed: %w",
			by, freed, need, ErrNoRoom)
	}
	return out, nil
}

func seqKeyDown(h []seqKey, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			c = r
		}
		if !h[c].less(&h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

func validOrder(by string) bool {
	for _, o := range SequenceOrders {
		if o == by {
			return true
		}
	}
	return false
}

// appendSeqKeys appends the keys of the unpinned candidates in the order
// by, one loop per order so the loops stay tight.
func appendSeqKeys(h []seqKey, cands []SeqCandidate, by string) []seqKey {
	for i := range cands {
		c := &cands[i]
		if c.Pinned {
			continue
		}
		k := seqKey{idx: int32(i)}
		switch by {
		case "lru":
			k.hi = ordInt(c.LastAccess)
		case "lfu":
			k.hi, k.lo = ordInt(c.Accesses), ordInt(c.LastAccess)
		case "qos_aware":
			k.hi, k.lo = uint64(c.Priority), ordInt(c.LastAccess)
		case "predictive":
			k.hi, k.lo = predictiveKey(c), ordInt(c.LastAccess)
		}
		h = append(h, k)
	}
	return h
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
