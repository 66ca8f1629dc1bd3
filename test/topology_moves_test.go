//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/numa"
)

// Decoded outputs of the probe and the workload (their JSON).
type (
	topologyReport struct {
		Kernel   string            `json:"kernel"`
		Topology numa.Topology     `json:"topology"`
		Sysctls  map[string]string `json:"sysctls"`
	}
	placement struct {
		Tenant string         `json:"tenant"`
		Pages  int            `json:"pages"`
		Nodes  map[string]int `json:"nodes"`
		Blocks []int          `json:"blocks"`
	}
	whereReport struct {
		PID    int         `json:"pid"`
		Arenas []placement `json:"arenas"`
	}
	moveReport struct {
		Node    int            `json:"node"`
		Pages   int            `json:"pages"`
		Seconds float64        `json:"seconds"`
		MBps    float64        `json:"mb_per_s"`
		Stats   numa.MoveStats `json:"stats"`
		Before  whereReport    `json:"before"`
		After   whereReport    `json:"after"`
	}
	verifyReport struct {
		Passes     int      `json:"passes"`
		Blocks     int      `json:"blocks"`
		Mismatched []string `json:"mismatched"`
	}
	workloadReport struct {
		PID      int          `json:"pid"`
		Verify   verifyReport `json:"verify"`
		FillMBps float64      `json:"fill_mb_per_s"`
		OK       bool         `json:"ok"`
		Errors   []string     `json:"errors"`
	}
)

// TestTopologyAndMoves is scenario 1 without the daemon, on both
// topologies with 6.12 and on the plain one with the 6.1 compatibility
// kernel: node 1 is classified slow (and on 6.12 with HMAT the kernel's
// memory tiers put it lower), the workload's arena moves to node 1 and
// back as move_pages queries from another process see it, and every
// checksum matches.
func TestTopologyAndMoves(t *testing.T) {
	for _, c := range []struct{ kernel, topology string }{
		{"6.12", "cxl"},
		{"6.12", "cxl-hmat"},
		{"6.1", "cxl"},
	} {
		name := c.kernel + "-" + c.topology
		t.Run(name, func(t *testing.T) {
			r := boot(t, scenario{
				name: "topology-moves-" + name, kernel: c.kernel, topology: c.topology,
				script: "topology-moves.sh", env: map[string]string{"ARENA_MIB": "64"},
			})
			r.checkTopology()
			r.checkMoves(64 << 20)
		})
	}
}

// checkTopology asserts the classification the topology file expects.
func (r *run) checkTopology() {
	t := r.t
	var tr topologyReport
	r.decode("topology", &tr)
	topo := &tr.Topology
	t.Logf("kernel %s, memory tiers %v, sysctls %v", tr.Kernel, topo.Tiers, tr.Sysctls)
	if len(topo.Nodes) != len(r.topo.Nodes) {
		r.fatal("guest has %d NUMA nodes, topology %s has %d", len(topo.Nodes), r.topo.Name, len(r.topo.Nodes))
	}
	for _, id := range r.topo.Expect.SlowNodes {
		if c, err := topo.ClassOf(id); err != nil || c != numa.ClassSlow {
			n, _ := topo.Node(id)
			r.fatal("numa classifies node %d as %v (err %v), want slow; node: %+v", id, c, err, n)
		}
	}
	if c, _ := topo.ClassOf(0); c != numa.ClassFast {
		r.fatal("numa classifies node 0 as %v, want fast", c)
	}
	if d, err := topo.Distance(0, 1); err != nil || d != r.topo.Distances[0].Val {
		r.fatal("distance 0->1 is %d (err %v), want %d", d, err, r.topo.Distances[0].Val)
	}
	if len(r.topo.Expect.KernelLowerTier) > 0 && kernelAtLeast(tr.Kernel, r.topo.Expect.MinTierKernel) {
		n0, _ := topo.Node(0)
		for _, id := range r.topo.Expect.KernelLowerTier {
			n, _ := topo.Node(id)
			if n.Tier == numa.NoTier || n0.Tier == numa.NoTier || n.Tier <= n0.Tier {
				r.fatal("kernel %s puts node %d in memory tier %d and node 0 in %d, want node %d lower (a higher tier number)",
					tr.Kernel, id, n.Tier, n0.Tier, id)
			}
		}
	}
	r.checkKvtierTopology()
}

// checkKvtierTopology asserts `kvtier topology --json` agrees, once the
// command exists in the binary under test.
func (r *run) checkKvtierTopology() {
	if !env.kvtierCommands["topology"] {
		r.t.Logf("kvtier has no topology command yet; classification checked through package numa only")
		return
	}
	var out struct {
		Nodes []struct {
			ID    int    `json:"id"`
			Class string `json:"class"`
		} `json:"nodes"`
	}
	raw := r.step("kvtier-topology").Output
	if err := json.Unmarshal(raw, &out); err != nil {
		r.fatal("kvtier topology --json: %v in %q", err, raw)
	}
	for _, id := range r.topo.Expect.SlowNodes {
		i := slices.IndexFunc(out.Nodes, func(n struct {
			ID    int    `json:"id"`
			Class string `json:"class"`
		}) bool {
			return n.ID == id
		})
		if i < 0 || out.Nodes[i].Class != "slow" {
			r.fatal("kvtier topology --json does not classify node %d slow: %s", id, raw)
		}
	}
}

// checkMoves asserts the moves of the arena and the checksums.
func (r *run) checkMoves(arenaBytes int) {
	t := r.t
	pages := arenaBytes / 4096
	var where whereReport
	r.decode("where-start", &where)
	r.wantAllOn("where-start", where, 0, pages)

	var to1, to0 moveReport
	r.decode("move-to-1", &to1)
	if to1.Stats.Failed != 0 {
		r.fatal("moving to node 1: %d pages failed: %v", to1.Stats.Failed, to1.Stats.Errnos)
	}
	r.wantAllOn("move-to-1 (after)", to1.After, 1, pages)
	r.wantVerified("verify-on-1")
	r.decode("where-after-read", &where)
	r.wantAllOn("where-after-read (numa_balancing 0)", where, 1, pages)

	r.decode("move-to-0", &to0)
	if to0.Stats.Failed != 0 {
		r.fatal("moving back to node 0: %d pages failed: %v", to0.Stats.Failed, to0.Stats.Errnos)
	}
	r.wantAllOn("move-to-0 (after)", to0.After, 0, pages)
	r.wantVerified("verify-on-0")

	var rep workloadReport
	r.decode("report", &rep)
	if !rep.OK || len(rep.Verify.Mismatched) != 0 || rep.Verify.Passes < 3 {
		r.fatal("workload report: ok %v, %d verification passes, mismatched %v, errors %v",
			rep.OK, rep.Verify.Passes, rep.Verify.Mismatched, rep.Errors)
	}

	var mc struct {
		MBps float64 `json:"mb_per_s"`
	}
	r.decode("memcpy", &mc)
	t.Logf("timings: move to node 1 %.0f MB/s, back %.0f MB/s, memcpy %.0f MB/s, fill %.0f MB/s; move/memcpy ratio %.2f and %.2f",
		to1.MBps, to0.MBps, mc.MBps, rep.FillMBps, to1.MBps/mc.MBps, to0.MBps/mc.MBps)
}

func (r *run) wantAllOn(what string, w whereReport, node, pages int) {
	r.t.Helper()
	if len(w.Arenas) != 1 {
		r.fatal("%s: %d arenas, want 1", what, len(w.Arenas))
	}
	a := w.Arenas[0]
	if a.Pages != pages || a.Nodes[strconv.Itoa(node)] != pages {
		r.fatal("%s: pages per node %v of %d, want all %d on node %d", what, a.Nodes, a.Pages, pages, node)
	}
}

func (r *run) wantVerified(step string) {
	r.t.Helper()
	var v verifyReport
	r.decode(step, &v)
	if v.Blocks == 0 || len(v.Mismatched) != 0 {
		r.fatal("%s: %d blocks verified, mismatched %v", step, v.Blocks, v.Mismatched)
	}
}

// kernelAtLeast compares "6.12.117+deb12-amd64" with a series like "6.12".
func kernelAtLeast(release, series string) bool {
	if series == "" {
		return true
	}
	parse := func(s string) (int, int) {
		var a, b int
		fmt.Sscanf(strings.SplitN(s, "-", 2)[0], "%d.%d", &a, &b)
		return a, b
	}
	ra, rb := parse(release)
	sa, sb := parse(series)
	return ra > sa || ra == sa && rb >= sb
}

// TestKernelAtLeast checks the kernel release comparison.
func TestKernelAtLeast(t *testing.T) {
	for _, c := range []struct {
		release, series string
		want            bool
	}{
		{"6.12.117+deb12-amd64", "6.12", true},
		{"6.1.0-56-amd64", "6.12", false},
		{"6.1.0-56-amd64", "6.1", true},
		{"7.0.0", "6.12", true},
		{"6.1.0", "", true},
	} {
		if got := kernelAtLeast(c.release, c.series); got != c.want {
			t.Errorf("kernelAtLeast(%q, %q) = %v, want %v", c.release, c.series, got, c.want)
		}
	}
}
