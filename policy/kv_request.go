package policy

import "strings"

// kvRequestExperts are kv_request's experts: kv_adaptive's default four
// and reuse_req.
const kvRequestExperts = "lru+prefix_chain+hit_density+arc+reuse_req"

func init() {
	Register(Info{
		Name: "kv_request",
		Doc: "kv_adaptive with the learned, request-level reuse_req as a fifth expert (" + kvRequestExperts +
			"): victims follow the expert whose shadow cache had the most recent hits",
		New: func(_ *Params, env Env) (Policy, error) {
			return NewKVRequest(env)
		},
	})
}

// NewKVRequest returns kv_adaptive over LRU, prefix_chain, hit_density,
// ARC and reuse_req, with kv_adaptive's default window, margin and shadow
// bound, as kv_learned has them (kv_learned's fifth expert is reuse_lru).
func NewKVRequest(env Env) (*KVAdaptive, error) {
	return NewKVAdaptive(KVAdaptiveConfig{Experts: strings.Split(kvRequestExperts, "+"), Window: 8, Margin: 1,
		Shadow: DefaultKVShadow}, env)
}
