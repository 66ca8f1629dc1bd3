package policy

func init() {
	Register(Info{
		Name: "qos_aware",
		Doc:  "QoS-aware: evict the lowest priority first, the least recently used within a priority",
		New:  func(*Params, Env) (Policy, error) { return NewQoS(), nil },
	})
}

// QoS evicts blocks of the lowest priority first (Meta.Priority: 0 low,
// 1 normal, 2 high) and the least recently used block within a priority.
// A priority change (Set.Update, or new metadata seen at an access) moves
// the block to its new priority keeping its recency. Events are O(log n).
// State: one item per resident block; nothing is kept after eviction.
type QoS struct{ rankedLRU }

// NewQoS returns an empty QoS-aware policy.
func NewQoS() *QoS {
	return &QoS{rankedLRU{order: func(it *item, _ Time, _ bool) {
		it.rank = int32(it.b.Meta.Priority)
	}}}
}
