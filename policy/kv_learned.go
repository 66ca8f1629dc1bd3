package policy

import "strings"

// kvLearnedExperts are kv_learned's experts: kv_adaptive's default four
// and reuse_lru.
const kvLearnedExperts = "lru+prefix_chain+hit_density+arc+reuse_lru"

func init() {
	Register(Info{
		Name: "kv_learned",
		Doc: "the recommended policy for KV traces: kv_adaptive with the learned reuse_lru as a fifth expert (" +
			kvLearnedExperts + "): victims follow the expert whose shadow cache had the most recent hits",
		New: func(_ *Params, env Env) (Policy, error) {
			return NewKVLearned(env)
		},
	})
}

// NewKVLearned returns kv_adaptive over LRU, prefix_chain, hit_density,
// ARC and reuse_lru, with kv_adaptive's default window (8 capacities),
// margin (one standard deviation) and shadow bound (set-sampled shadows
// above DefaultKVShadow blocks). LRU is first, so it decides alone where
// blocks are admitted without accesses.
func NewKVLearned(env Env) (*KVAdaptive, error) {
	return NewKVAdaptive(KVAdaptiveConfig{Experts: strings.Split(kvLearnedExperts, "+"), Window: 8, Margin: 1,
		Shadow: DefaultKVShadow}, env)
}
