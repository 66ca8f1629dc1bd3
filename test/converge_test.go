//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/test/guest"
)

// TestConvergence is scenario 1 with the daemon, on 6.12 with HMAT and,
// for compatibility, on the 6.1 kernel linux-image-amd64 depends on (no
// DAMON there: the daemon samples software page faults with BPF, as on
// 6.12): the workload registers a 64 MiB arena (32 blocks of 2 MiB,
// block 0 pinned) and reads its hot set (blocks 0-7); with a 24 MiB
// fast-tier budget the hot blocks must end on node 0 and the others on
// node 1, as the probe's move_pages queries see it, and every checksum
// must match.
func TestConvergence(t *testing.T) {
	for _, k := range []struct{ kernel, topology string }{{"6.12", "cxl-hmat"}, {"6.1", "cxl"}} {
		t.Run(k.kernel+"-"+k.topology, func(t *testing.T) { converge(t, k.kernel, k.topology) })
	}
}

// converge boots kernel on topology with the converge scenario and checks
// that the arena's hot blocks end on node 0 within the budget, the BPF
// sampler attached, and every checksum matched.
func converge(t *testing.T, kernel, topology string) {
	const (
		arenaMiB  = 64
		blockMiB  = 2
		budgetMiB = 24
		hot       = 8 // hot-frac 0.25 of 32 blocks
	)
	r := boot(t, scenario{
		name: "converge-" + kernel + "-" + topology, kernel: kernel, topology: topology,
		script: "converge.sh", env: map[string]string{"ARENA_MIB": "64", "HOT_ROUNDS": "8"},
		files: []guest.Item{{Path: "etc/kvtier/kvtier.hcl", Source: filepath.Join("configs", "converge.hcl")}},
	})
	r.step("daemon-up")
	if res, ok := r.results.Get("daemon-log"); ok {
		t.Logf("daemon log:\n%s", tail(res.Output, 40))
	}
	var start, end whereReport
	r.decode("where-start", &start)
	r.decode("where-converged", &end)
	blocks := end.Arenas[0].Blocks
	r.checkConvergedBlocks(blocks, arenaMiB/blockMiB, hot, blockMiB, budgetMiB)
	// The BPF page-fault sampler attached and ran. It counts nothing
	// here: the workload faults its arena in before it registers, so the
	// hot reads fault no more and the workload's API hints drive the
	// placement; the check is that the BPF side loads and attaches on
	// each kernel (6.1 has no DAMON).
	var st struct {
		Samplers []struct {
			Name   string `json:"name"`
			Events uint64 `json:"events"`
			Error  string `json:"error"`
		} `json:"samplers"`
	}
	r.decode("status", &st)
	if len(st.Samplers) != 1 || st.Samplers[0].Name != "sw-page-faults" || st.Samplers[0].Error != "" {
		r.fatal("samplers %+v: want sw-page-faults attached", st.Samplers)
	}
	if log, ok := r.results.Get("daemon-log"); !ok || !strings.Contains(string(log.Output), "sampler attached: sampler=sw-page-faults") {
		r.fatal("the daemon log does not say the sw-page-faults sampler attached")
	}
	var rep workloadReport
	r.decode("report", &rep)
	if !rep.OK || len(rep.Verify.Mismatched) != 0 {
		r.fatal("workload report: ok %v, mismatched %v, errors %v", rep.OK, rep.Verify.Mismatched, rep.Errors)
	}
	t.Logf("converged: blocks per node %v (start %v); sw-page-faults counted %d accesses", end.Arenas[0].Nodes, start.Arenas[0].Nodes, st.Samplers[0].Events)
}

// checkConvergedBlocks checks the converged arena's blocks: n of them,
// each wholly on node 0 or 1, the first hot on node 0, and no more on node
// 0 than budgetMiB holds in blocks of blockMiB.
func (r *run) checkConvergedBlocks(blocks []int, n, hot, blockMiB, budgetMiB int) {
	r.t.Helper()
	if len(blocks) != n {
		r.fatal("where-converged: %d blocks, want %d", len(blocks), n)
	}
	fast := 0
	for i, n := range blocks {
		if n == 0 {
			fast++
		}
		if i < hot && n != 0 {
			r.fatal("hot block %d is on node %d, want 0; blocks %v", i, n, blocks)
		}
		if n != 0 && n != 1 {
			r.fatal("block %d is on node %d (-2: split across nodes, -1: not present), want 0 or 1; blocks %v", i, n, blocks)
		}
	}
	if fast*blockMiB > budgetMiB {
		r.fatal("%d MiB of the arena on node 0, budget %d MiB; blocks %v", fast*blockMiB, budgetMiB, blocks)
	}
}
