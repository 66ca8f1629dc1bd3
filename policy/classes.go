package policy

func init() {
	Register(Info{
		Name: "tiered_classes",
		Doc: "tiered classes: evict think_complete blocks first, then think_active (and unclassified), then " +
			"output_critical, the least recently used within a class; classes only move toward eviction",
		New: func(*Params, Env) (Policy, error) { return NewClasses(), nil },
	})
}

// Classes evicts from the lowest class first (Class.Rank: think_complete,
// then think_active and unclassified blocks, then output_critical) and the
// least recently used block within a class. A touch reorders a block
// within its class and never promotes it across classes. Classes only move
// toward eviction (seed 004's one-way demotion): a change to a lower-ranked
// class (think_active -> think_complete, told through Set.Update or seen at
// an access) moves the block down keeping its recency, while a change to a
// higher-ranked class is ignored until the block leaves the fast tier; it is
// ranked by its metadata again when it is next admitted. Events are
// O(log n). State: one item per resident block; nothing is kept after
// eviction.
type Classes struct{ rankedLRU }

// NewClasses returns an empty tiered-classes policy.
func NewClasses() *Classes {
	return &Classes{rankedLRU{order: func(it *item, _ Time, fresh bool) {
		r := int32(it.b.Meta.Class.Rank())
		if fresh || r < it.rank {
			it.rank = r
		}
	}}}
}
