package daemon

import (
	"testing"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/policy"
)

// TestReuseEvidence: what the daemon feeds the planner as evidence of
// reuse. A DAMON count from two aggregation intervals of one epoch (two
// events) promotes its block at that epoch's end; one interval does not;
// a PMU sampler's events say nothing of separate reads. A hint and a
// sample of the same read are one read; two hints are two. Before, DAMON's
// counts carried no events and every block waited a second epoch (B's
// time to 80% in the head-to-head), and a block sampled once and hinted
// once counted as reused.
func TestReuseEvidence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sampler string // "" for none
		events  uint64
		hints   int
		want    bool
	}{
		{name: "damon, one interval", sampler: "damon", events: 1, want: false},
		{name: "damon, two intervals", sampler: "damon", events: 2, want: true},
		{name: "perf, many samples", sampler: "perf", events: 5, want: false},
		{name: "uprobe, two calls", sampler: "uprobe", events: 2, want: true},
		{name: "damon once and a hint", sampler: "damon", events: 1, hints: 1, want: false},
		{name: "uprobe once and a hint", sampler: "uprobe", events: 1, hints: 1, want: true},
		{name: "one hint", hints: 1, want: false},
		{name: "two hints", hints: 2, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, r := slowFixture(t)
			d.mu.Lock()
			defer d.mu.Unlock()
			now := d.now()
			if tc.sampler != "" {
				c := bpf.Count{Region: uint32(r.id), Block: 2, Accesses: 3, Events: tc.events}
				d.feedCountsLocked(openedState(tc.sampler), []bpf.Count{c}, now, tenantHits{})
			}
			for range tc.hints {
				d.accessLocked(r.id, 2, hintObservation, now, nil)
			}
			pl, _, _ := d.decideLocked(now)
			got := len(pl.Promote) == 1 && pl.Promote[0].Block.ID == r.idOf(2)
			if got != tc.want {
				t.Fatalf("block 2 promoted %v (plan promotes %d blocks), want %v", got, len(pl.Promote), tc.want)
			}
		})
	}
}

// openedState is the state of sampler name as openSampler leaves it, with
// no sampler behind it.
func openedState(name string) *samplerState {
	sight, _ := bpf.SightOf(name)
	return &samplerState{name: name, sight: sight}
}

// swappedTiers is a config for the two-node fixture with the tiers
// swapped: node 0, where this host's pages are, is the slow node.
const swappedTiers = `
epoch = "10s"
kernel_tiering = "report"
sampler "fault" {}
tiers {
  fast = [1]
  slow = [0]
}
`

// slowFixture is a daemon on the two-node fixture with the tiers swapped
// (node 0, where this host's pages are, slow) and one region of a
// workload's buffer, registered with every block slow.
func slowFixture(t *testing.T) (*Daemon, *region) {
	t.Helper()
	d, _ := fixtureDaemon(t, swappedTiers)
	wl := startWorkload(t)
	v, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: wl.Size, blockSz: 64 << 10,
		source: "test", priority: policy.PriorityNormal, refcount: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v.FastBytes != 0 {
		t.Fatalf("region registered with %d fast bytes, want every block slow", v.FastBytes)
	}
	return d, d.regions[v.ID]
}
