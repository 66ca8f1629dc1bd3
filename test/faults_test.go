//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFaults is scenario 5 on a 6.12 guest whose node 1 has 192 MiB: a
// workload killed mid-migration, the daemon killed with SIGKILL
// mid-migration and restarted, and node 1 filling up.
func TestFaults(t *testing.T) {
	r := boot(t, scenario{
		name: "faults-6.12-cxl-small", kernel: "6.12", topology: "cxl-small",
		script: "faults.sh", timeout: 5 * time.Minute, files: configs("faults.hcl"),
	})
	t.Run("workload-exit", func(t *testing.T) { r.with(t).checkWorkloadExit() })
	t.Run("daemon-sigkill", func(t *testing.T) { r.with(t).checkDaemonKill() })
	t.Run("unprivileged", func(t *testing.T) { r.with(t).checkUnprivileged() })
	t.Run("node-full", func(t *testing.T) { r.with(t).checkNodeFull() })
}

// checkWorkloadExit: workload a died while its blocks were being demoted
// (some on node 1, more to go); the daemon dropped its region and went on
// placing workload b's blocks, and answers the API.
func (r *run) checkWorkloadExit() {
	var m map[string]float64
	r.decode("a-migrating", &m) // the metrics when the kill was sent
	slowA := m[`kvtier_tier_bytes{tenant="a",tier="slow"}`]
	if slowA <= 0 || slowA >= 48<<20 {
		r.fatal("when workload a was killed %.0f bytes (%.1f MiB) of its 48 MiB were on node 1: want a demotion under way (some, not all)", slowA, slowA/(1<<20))
	}
	var regions []struct {
		Tenant string `json:"tenant"`
	}
	r.decode("regions-after-a", &regions)
	if len(regions) != 1 || regions[0].Tenant != "b" {
		r.fatal("after workload a was killed the daemon has regions %+v, want only tenant b's", regions)
	}
	var w whereReport
	r.decode("where-b-after-a", &w)
	b := w.Arenas[0].Blocks
	for _, i := range append([]int{0, 1}, r.blockList("b-promote-set")...) {
		if b[i] != 0 {
			r.fatal("tenant b's block %d, read after workload a died, is on node %d: the daemon stopped serving b; blocks %s (read: 0,1,%s)",
				i, b[i], blockString(b), r.text("b-promote-set"))
		}
	}
	if fast := onNode(w, seq(0, len(b)), 0); len(fast) > 8 {
		r.fatal("tenant b has %d blocks on node 0, more than the 16 MiB fast tier; blocks %s", len(fast), blockString(b))
	}
	s := r.series("scrape-one")
	var after sample
	for _, x := range s {
		if x.get("kvtier_regions_dropped_total") >= 1 {
			after = x
			break
		}
	}
	if after.M == nil {
		r.fatal("kvtier_regions_dropped_total never counted workload a's region")
	}
	if s.last().get("kvtier_epochs_total") <= after.get("kvtier_epochs_total")+2 {
		r.fatal("the epoch loop stalled after workload a died (epochs %v then %v)", after.get("kvtier_epochs_total"), s.last().get("kvtier_epochs_total"))
	}
	r.t.Logf("workload a killed with %.0f MiB on node 1; tenant b afterwards %s; migration errors %s",
		slowA/(1<<20), blockString(b), s.last().labelled("kvtier_migration_errors_total"))
}

// faultsRegion is a region as GET /v1/regions lists it.
type faultsRegion struct {
	ID       uint64 `json:"id"`
	PID      int    `json:"pid"`
	Tenant   string `json:"tenant"`
	Priority string `json:"priority"`
}

// checkDaemonKill: the daemon was SIGKILLed while demoting workload c;
// every checksum matched; a new daemon restored b's and c's registrations
// from its state file (neither registered again), placed their blocks and
// ended within the budget.
func (r *run) checkDaemonKill() {
	killed := r.text("daemon-killed-metrics")
	if !strings.HasSuffix(killed, "gone") {
		r.fatal("the daemon still ran after SIGKILL: %q", killed)
	}
	var c whereReport
	r.decode("where-c-killed", &c)
	cb := c.Arenas[0].Blocks
	slow := onNode(c, seq(0, len(cb)), 1)
	if len(slow) == 0 || len(slow) >= len(cb)-1 {
		r.fatal("when the daemon was killed workload c had blocks %s on node 1: want a demotion under way", blockString(cb))
	}
	for _, step := range []string{"verify-c-killed", "verify-b-killed", "verify-c-restarted", "verify-b-restarted"} {
		r.wantVerified(step)
	}
	if log := r.text("daemon-log-one"); strings.Contains(log, "cannot save the registrations") {
		r.fatal("the first daemon could not write its state file:\n%s", log[max(0, len(log)-3000):])
	}
	r.checkRestored()
	log2 := r.text("daemon-log-two")
	if !regexp.MustCompile(`registrations restored.* restored=2 dropped=0`).MatchString(log2) {
		r.fatal("the restarted daemon did not log that it restored both registrations (first of its log):\n%s", log2[:min(len(log2), 3000)])
	}
	r.decode("where-c-restarted", &c)
	cb = c.Arenas[0].Blocks
	var b whereReport
	r.decode("where-b-restarted", &b)
	two := r.series("scrape-two")
	if two.last().get(`kvtier_migrated_bytes_total{direction="demote"}`) == 0 || two.last().get(epochsTotal) < 10 {
		r.fatal("the restarted daemon did not take over: %v epochs, %s", two.last().get(epochsTotal), two.last().labelled(migratedBytes))
	}
	// The restarted daemon reads where the restored blocks are (it
	// assumed them all fast, so demoting already-slow blocks freed room
	// that was never there and node 0 went over the budget).
	fast := len(onNode(c, seq(0, len(cb)), 0)) + len(onNode(b, seq(0, len(b.Arenas[0].Blocks)), 0))
	split := len(onNode(c, seq(0, len(cb)), -2)) + len(onNode(b, seq(0, len(b.Arenas[0].Blocks)), -2))
	if fast > 8 || split > 0 {
		r.fatal("5 s after the restart %d blocks of b and c are on node 0 (fast tier 8 blocks) and %d split across nodes: c %s, b %s",
			fast, split, blockString(cb), blockString(b.Arenas[0].Blocks))
	}
	r.t.Logf("killed the daemon with c at %s; after the restart c %s, b %s", blockString(r.blocksOf("where-c-killed")), blockString(cb), blockString(b.Arenas[0].Blocks))
}

// checkUnprivileged: a client as uid and gid 65534 (the API socket's
// group) is refused pid 1, root's workload b, b's region (not found: it
// cannot tell that the region exists) and trace recording, may register
// its own process (with and without pid), and lists only its own regions;
// b's region is unchanged afterwards.
func (r *run) checkUnprivileged() {
	var rep struct {
		UID, GID, PID int
		Steps         []struct {
			Name string `json:"name"`
			Code int    `json:"code"`
			Body string `json:"body"`
		} `json:"steps"`
	}
	r.decode("authz-nobody", &rep)
	if rep.UID != 65534 || rep.GID != 65534 {
		r.fatal("the client ran as uid %d gid %d, want 65534", rep.UID, rep.GID)
	}
	pidB, pidC := r.restartedPIDs()
	rootRegion := r.text("authz-root-region")
	want := map[string]int{"register-pid1": 403, "register-root-process": 403, "register-itself": 201,
		"register-itself-by-pid": 201, "list": 200, "read-root-region": 404, "placement-root-region": 404,
		"change-root-region": 404, "hint-root-region": 404, "unregister-root-region": 404, "placement-all": 200,
		"trace-inside": 403, "trace-outside": 403}
	for _, st := range rep.Steps {
		w, ok := want[st.Name]
		if !ok {
			continue
		}
		delete(want, st.Name)
		if st.Code != w {
			r.fatal("%s as uid 65534 = %d %s, want %d", st.Name, st.Code, st.Body, w)
		}
		if st.Code >= 400 && strings.Contains(st.Body, "unmapped") {
			r.fatal("%s as uid 65534 answers %s: an error text tells of another user's memory", st.Name, st.Body)
		}
		switch st.Name {
		case "list":
			var own []faultsRegion
			if err := json.Unmarshal([]byte(st.Body), &own); err != nil {
				r.fatal("list as uid 65534: %v: %s", err, st.Body)
			}
			if len(own) != 2 || own[0].PID != rep.PID || own[1].PID != rep.PID {
				r.fatal("uid 65534 lists %+v, want its own two regions (pid %d) only", own, rep.PID)
			}
		case "placement-all":
			if strings.Contains(st.Body, fmt.Sprintf(`"pid":%d`, pidB)) || strings.Contains(st.Body, fmt.Sprintf(`"pid":%d`, pidC)) ||
				strings.Contains(st.Body, `"region":`+rootRegion+",") {
				r.fatal("uid 65534 reads root's placement: %s", st.Body[:min(len(st.Body), 2000)])
			}
		}
	}
	if len(want) != 0 {
		r.fatal("steps without an answer: %v", want)
	}
	r.checkRootRegionUnchanged(rootRegion, pidB)
	r.t.Logf("uid 65534 (pid %d) against root's region %s: %d answers as expected", rep.PID, rootRegion, len(rep.Steps))
}

func (r *run) blocksOf(step string) []int {
	var w whereReport
	r.decode(step, &w)
	return w.Arenas[0].Blocks
}

// checkNodeFull: node 1 filled up under workload d's demotions; no
// checksum suffers, the daemon goes on serving, counts the failures, backs
// off and logs why.
func (r *run) checkNodeFull() {
	r.wantVerified("verify-d")
	for _, step := range []string{"report-b", "report-c", "report-d"} {
		r.wantReportOK(step)
	}
	free := r.node1FreeKB()
	if free == 0 || free > 16<<10 {
		r.fatal("node 1 has %d kB free after workload d's demotions: it did not fill up (%q)", free, r.text("node1-full"))
	}
	var st statusReport
	r.decode("status-full", &st)
	s := r.series("scrape-two")
	r.requireMetric(s.last(), "kvtier_moves_not_executed_total") // migration_errors_total appears with its first errno
	// The epochs after node 1 filled: the last 12 seconds of the run.
	var tail series
	for _, x := range s {
		if x.T >= s.last().T-10 {
			tail = append(tail, x)
		}
	}
	epochs := tail[len(tail)-1].get(epochsTotal) - tail[0].get(epochsTotal)
	if epochs < 4 {
		r.fatal("only %v epochs in the last 10 s after node 1 filled: the epoch loop stalled", epochs)
	}
	failing := failingEpochs(tail)
	log := string(r.step("daemon-log-two").Output)
	r.t.Logf("node 1: %s before d, %d kB free after; in the last 10 s %v epochs, %d of them with moves not executed; errors %s",
		strings.Join(strings.Fields(r.text("node1-before-d")), " "), free, epochs, failing, s.last().labelled("kvtier_migration_errors_total"))
	// The daemon counts the failures, backs off from the full node
	// (demotions held for 2, 4, 8 ... epochs, so most epochs plan no move
	// to it) and says why once per backoff, in its log and metrics.
	if s.last().sum("kvtier_migration_errors_total") == 0 {
		r.fatal("kvtier_migration_errors_total counted nothing (move_pages' ENOMEM from the mover is dropped)")
	}
	if float64(failing)*2 > epochs {
		r.fatal("it planned moves to the full node in %d of %v epochs (%v moves not executed in all): no backoff",
			failing, epochs, s.last().get("kvtier_moves_not_executed_total"))
	}
	full := s.last().get(`kvtier_node_full_total{node="1"}`)
	backoffs := strings.Count(log, "node full (ENOMEM): backing off")
	if full == 0 || backoffs == 0 {
		r.fatal("kvtier_node_full_total{node=\"1\"} = %v and %d backoff lines in the daemon log: the full node went unnoticed", full, backoffs)
	}
	if float64(backoffs) > full {
		r.fatal("%d backoff lines logged for %v times node 1 was found full: want one per backoff", backoffs, full)
	}
	if !regexp.MustCompile(`node full \(ENOMEM\): backing off.*node=1 held=demotions`).MatchString(log) {
		r.fatal("the daemon log does not say that demotions to node 1 are held (last of it):\n%s", log[max(0, len(log)-3000):])
	}
	r.t.Logf("node 1 found full %v times, %d backoffs logged; status node_backoff %+v", full, backoffs, st.NodeBackoff)
}

// checkRestored checks that the daemon restarted after the kill lists the
// two regions the killed one saved in its state file, b's and c's, under
// their pids and with the IDs they had, without their registering again.
func (r *run) checkRestored() {
	r.t.Helper()
	var saved struct {
		Regions []struct {
			Request struct {
				PID    int    `json:"pid"`
				Tenant string `json:"tenant"`
			} `json:"request"`
			ID uint64 `json:"id"`
		} `json:"regions"`
	}
	r.decode("state-killed", &saved)
	pidB, pidC := r.restartedPIDs()
	want := map[string]int{"b": pidB, "c": pidC}
	if len(saved.Regions) != 2 {
		r.fatal("the state file the killed daemon left holds %d regions, want b's and c's: %s", len(saved.Regions), r.text("state-killed"))
	}
	var regions []faultsRegion
	r.decode("regions-restarted", &regions)
	got := map[string]int{}
	for _, x := range regions {
		got[x.Tenant] = x.PID
	}
	if len(regions) != 2 || got["b"] != pidB || got["c"] != pidC {
		r.fatal("after the restart, without registering again, the daemon lists %+v, want tenant b (pid %d) and c (pid %d)",
			regions, want["b"], want["c"])
	}
	// The workloads hint and change their regions by the IDs they were
	// given: each region keeps its ID.
	for _, sr := range saved.Regions {
		for _, x := range regions {
			if x.Tenant == sr.Request.Tenant && x.ID != sr.ID {
				r.fatal("tenant %s's region had ID %d before the kill and %d after the restart", x.Tenant, sr.ID, x.ID)
			}
		}
	}
}

// checkRootRegionUnchanged checks that root's region rootRegion, of pid
// pidB, is listed the same before and after uid 65534's attempts.
func (r *run) checkRootRegionUnchanged(rootRegion string, pidB int) {
	r.t.Helper()
	var before, after []faultsRegion
	r.decode("regions-restarted", &before)
	r.decode("authz-regions-after", &after)
	find := func(rs []faultsRegion) *faultsRegion {
		for i := range rs {
			if fmt.Sprint(rs[i].ID) == rootRegion {
				return &rs[i]
			}
		}
		return nil
	}
	if b, a := find(before), find(after); b == nil || a == nil || *a != *b || a.PID != pidB {
		r.fatal("root's region %s (pid %d) before uid 65534's attempts %+v, after %+v: want it there and unchanged", rootRegion, pidB, b, a)
	}
}

// node1FreeKB is node 1's MemFree in kB when it was found full.
func (r *run) node1FreeKB() int {
	free := 0
	for _, f := range strings.Split(r.text("node1-full"), "\n") {
		if strings.Contains(f, "MemFree:") {
			fmt.Sscanf(strings.Fields(f)[3], "%d", &free)
		}
	}
	return free
}

// failingEpochs counts the epochs of tail in which a planned move was not
// executed.
func failingEpochs(tail series) int {
	var failing int
	for i := 1; i < len(tail); i++ {
		if tail[i].get(epochsTotal) > tail[i-1].get(epochsTotal) &&
			tail[i].get("kvtier_moves_not_executed_total") > tail[i-1].get("kvtier_moves_not_executed_total") {
			failing++
		}
	}
	return failing
}

// restartedPIDs returns the pids of processes b and c the guest restarted
// (its pids-restarted output), failing the run when it cannot be read.
func (r *run) restartedPIDs() (pidB, pidC int) {
	if _, err := fmt.Sscanf(r.text("pids-restarted"), "%d %d", &pidB, &pidC); err != nil {
		r.fatal("pids-restarted = %q: %v", r.text("pids-restarted"), err)
	}
	return pidB, pidC
}
