package policy

import "testing"

// TestLearnedDigests replays seeded traces through the request-level and
// learned policies and compares the digest of their hits and victims with
// the one recorded before their state was restructured (reuse_req's
// ghosts moved from a map into its entries, kv_adaptive's hand-over to a
// new leader spread over later calls): their decisions must not change
// unless a change says so and shows its goal figures.
func TestLearnedDigests(t *testing.T) {
	seqs := traceShape{n: 20000, universe: 300, unit: 1, forgets: true, seqs: true}
	mixed := traceShape{n: 20000, universe: 300, unit: 1, pins: true, forgets: true}
	large := traceShape{n: 60000, universe: 1024, unit: 1, forgets: true, seqs: true}
	const five = "kv_adaptive:experts=lru+prefix_chain+hit_density+arc+"
	cases := []struct {
		spec     string
		shape    traceShape
		capacity int
		want     uint64
	}{
		{"reuse_req", seqs, 32, 0xd519ec68f0439042},
		{"reuse_req:horizon=1", seqs, 32, 0xb925608fc7a971d3},
		{"reuse_req", mixed, 40, 0x1418f6a2940c5613},
		// In the next five rows the fifth expert never leads (kv_request
		// and kv_learned give one digest, and so do the two mixes at 128
		// blocks): they pin the mix and its changes of leader, not
		// reuse_req's order, which the reuse_req rows and the last one do.
		{"kv_request", seqs, 32, 0x3fb0d5c1bb481baf},
		{"kv_learned", seqs, 32, 0x3fb0d5c1bb481baf},
		// Sampled shadows (2 and 8 blocks to one), so that a change of
		// leader moves the residents to a new instance.
		{five + "reuse_req,shadow=16", large, 32, 0xf5a8cd0f4e8592d1},
		{five + "reuse_req,shadow=16", large, 128, 0x3c648e38af4cf368},
		{five + "reuse_lru,shadow=16", large, 128, 0x3c648e38af4cf368},
		{"kv_adaptive:experts=lru+reuse_lru,shadow=16", large, 32, 0x6dc6c795ec9b5509},
		{"kv_adaptive:experts=reuse_req+lru,shadow=16", large, 128, 0x22e274193d358848},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			var ops []traceOp
			if c.shape.seqs {
				ops = genSeqTrace(11, c.shape)
			} else {
				ops = genTrace(11, c.shape)
			}
			env := Env{CapacityBytes: int64(c.capacity), CapacityBlocks: c.capacity, Seed: 1}
			got := replayProps(t, Info{Name: c.spec}, env, int64(c.capacity), ops)
			if got.digest != c.want {
				t.Errorf("digest %#x (%d misses), want %#x", got.digest, got.misses, c.want)
			}
		})
	}
}
