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

// seqKey orders one candidate: smaller is evicted first.
type seqKey struct {
	rank int32
	idx  int32 // index in the candidates; the final tie-break
	key  float64
	tie  Time
}

func (a *seqKey) less(b *seqKey) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.key != b.key {
		return a.key < b.key
	}
	if a.tie != b.tie {
		return a.tie < b.tie
	}
	return a.idx < b.idx
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
	keyOf, err := seqOrder(by)
	if err != nil {
		return nil, err
	}
	bufp := seqKeyPool.Get().(*[]seqKey)
	defer seqKeyPool.Put(bufp)
	h := (*bufp)[:0]
	for i := range cands {
		if c := &cands[i]; !c.Pinned {
			k := keyOf(c)
			k.idx = int32(i)
			h = append(h, k)
		}
	}
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

func seqOrder(by string) (func(*SeqCandidate) seqKey, error) {
	switch by {
	case "lru":
		return func(c *SeqCandidate) seqKey { return seqKey{key: float64(c.LastAccess)} }, nil
	case "lfu":
		return func(c *SeqCandidate) seqKey { return seqKey{key: float64(c.Accesses), tie: c.LastAccess} }, nil
	case "qos_aware":
		return func(c *SeqCandidate) seqKey {
			return seqKey{rank: int32(c.Priority), key: float64(c.LastAccess)}
		}, nil
	case "predictive":
		return func(c *SeqCandidate) seqKey {
			switch {
			case c.Lifetime > 0 && !math.IsNaN(c.Lifetime):
				return seqKey{rank: predLifetime, key: c.Lifetime, tie: c.LastAccess}
			case c.MaxLen > 0:
				return seqKey{rank: predCompletion, key: -float64(c.SeqLen) / float64(c.MaxLen), tie: c.LastAccess}
			default:
				return seqKey{rank: predRecency, tie: c.LastAccess}
			}
		}, nil
	}
	return nil, fmt.Errorf("selecting sequences by %q: %w (want one of %v)", by, ErrUnknownPolicy, SequenceOrders)
}
