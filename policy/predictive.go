package policy

import "math"

func init() {
	Register(Info{
		Name: "predictive",
		Doc: "predictive: evict the shortest estimated remaining lifetime first, then (lifetime unknown) the " +
			"highest completion ratio seq_len/max_len, then (both unknown) the least recently used",
		New: func(*Params, Env) (Policy, error) { return NewPredictive(), nil },
	})
}

// Ranks of predictive.
const (
	predLifetime   int32 = iota // Meta.Lifetime > 0
	predCompletion              // Meta.MaxLen > 0
	predRecency                 // neither known
)

// Predictive is seed 002's lifetime-predicting policy. Blocks with an
// estimated remaining lifetime (Meta.Lifetime > 0) are evicted first, the
// shortest first: a block that will soon be freed costs least to demote.
// Then blocks whose sequence's completion ratio SeqLen/MaxLen is known, the
// highest first (the sequence is about to finish). Then the rest, least
// recently used first; the least recently used also breaks every tie. The
// seed mixes seconds, ratios and timestamps in one sort key; here the three
// groups are ranked one after the other.
//
// Meta.Lifetime is read at each event of the block (access, admission,
// Set.Update) as the remaining lifetime from that event's time, so the key
// is the estimated end time now+Lifetime, which ranks blocks by remaining
// lifetime at any later time without changing. Events are O(log n). State:
// one item per resident block; nothing is kept after eviction.
type Predictive struct{ rankedLRU }

// NewPredictive returns an empty predictive policy.
func NewPredictive() *Predictive {
	return &Predictive{rankedLRU{order: func(it *item, now Time, _ bool) {
		m := it.b.Meta
		switch {
		case m.Lifetime > 0 && !math.IsInf(m.Lifetime, 0) && !math.IsNaN(m.Lifetime):
			it.rank, it.key = predLifetime, float64(now)+m.Lifetime
		case m.MaxLen > 0:
			it.rank, it.key = predCompletion, -float64(m.SeqLen)/float64(m.MaxLen)
		default:
			it.rank, it.key = predRecency, 0
		}
	}}}
}
