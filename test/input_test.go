//go:build e2e

package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// statusReport is the part of the daemon's status the scenarios check.
type statusReport struct {
	Policy        string `json:"policy"`
	Moving        bool   `json:"moving"`
	KernelTiering struct {
		Mode          string `json:"mode"`
		NUMABalancing string `json:"numa_balancing"`
		Action        string `json:"action"`
	} `json:"kernel_tiering"`
	Regions int `json:"regions"`
	Epoch   struct {
		Count int `json:"count"`
	} `json:"epoch"`
	NodeBackoff []struct {
		Node   int    `json:"node"`
		Held   string `json:"held"`
		Epochs int    `json:"epochs"`
	} `json:"node_backoff"`
}

// TestInput boots one 6.12 guest for scenario 7 (the kernel's own NUMA
// balancing against kernel_tiering = refuse, report and disable) and
// scenario 6 (malformed API requests and configs).
func TestInput(t *testing.T) {
	r := boot(t, scenario{
		name: "input-6.12-cxl", kernel: "6.12", topology: "cxl", script: "input.sh", timeout: 4 * time.Minute,
		files: configs("tiering.hcl", "bad.hcl", "bad-syntax.hcl"),
	})
	t.Run("kernel-tiering", func(t *testing.T) { r.with(t).checkKernelTiering() })
	t.Run("bad-input", func(t *testing.T) { r.with(t).checkBadInput() })
}

func (r *run) text(step string) string { return strings.TrimSpace(string(r.step(step).Output)) }

func (r *run) checkKernelTiering() {
	out := r.checkTieringRefuse()
	var w whereReport
	var st statusReport
	s := r.checkTieringReport(&w, &st)
	r.checkTieringDisable(&w, &st)
	r.t.Logf("refuse: %q; report: nothing moved, %v planned moves not executed; disable: blocks %s",
		out, s.get("kvtier_moves_not_executed_total"), blockString(w.Arenas[0].Blocks))
}

// badRequests are what scenario 6 expects for each malformed request of
// the probe (probe/badinput.go): the status class and words the error
// message must contain (case-insensitive).
var badRequests = map[string]struct {
	status int
	words  []string
}{
	"wrong-type":           {400, []string{"pid"}},
	"unknown-field":        {400, []string{"colour"}},
	"malformed-json":       {400, []string{"json"}},
	"trailing-data":        {400, []string{"trailing"}},
	"empty-body":           {400, []string{"empty"}},
	"oversized-body":       {413, []string{"larger"}},
	"unmapped-range":       {400, []string{"pid"}},
	"no-such-pid":          {404, []string{"4000000"}},
	"length-not-pages":     {400, []string{"length"}},
	"bad-block-size":       {400, []string{"block_size"}},
	"bad-class":            {400, []string{"lukewarm"}},
	"negative-pid":         {400, []string{"pid"}},
	"update-bad-class":     {400, []string{"lukewarm"}},
	"update-unknown-field": {400, []string{"klass"}},
	"hints-out-of-range":   {400, []string{"block"}},
	"hints-wrong-type":     {400, []string{"blocks"}},
	"no-such-region":       {404, []string{"999999"}},
	"bad-region-id":        {400, []string{"abc"}},
	"no-such-endpoint":     {404, []string{"/v1/nothing"}},
}

func (r *run) checkBadInput() {
	r.checkBadReplies()
	// Nothing bogus registered; the daemon still serves.
	var regions []struct {
		Tenant string `json:"tenant"`
	}
	r.decode("regions-after-badinput", &regions)
	if len(regions) != 1 || regions[0].Tenant != "a" {
		r.fatal("after the malformed requests the daemon has regions %+v, want only the workload's", regions)
	}
	r.checkConfigCheck()
	r.checkBadReload()
	r.wantReportOK("report-report")
	if d := r.text("daemon-exit-disable"); d != "0" {
		r.fatal("the daemon exited with %s after SIGTERM", d)
	}
}

// checkTieringRefuse checks kernel_tiering = refuse: with NUMA balancing
// on (Debian's default), the daemon exits non-zero naming the conflict and
// the setting, and leaves balancing on. It returns the daemon's output.
func (r *run) checkTieringRefuse() string {
	r.t.Helper()
	if v := r.text("balancing-at-boot"); v == "0" {
		r.fatal("NUMA balancing is off at boot (%q): the scenario needs Debian's default (on)", v)
	}
	// refuse: exits non-zero, names the conflict and the setting.
	out := r.text("refuse")
	if !strings.Contains(out, "exit=") || strings.HasSuffix(out, "exit=0") || strings.HasSuffix(out, "exit=124") {
		r.fatal("kernel_tiering = refuse: the daemon did not exit with an error (124: still running after 30s): %q", out)
	}
	for _, want := range []string{"NUMA balancing", "refuse"} {
		if !strings.Contains(out, want) {
			r.fatal("kernel_tiering = refuse: the error does not mention %q: %q", want, out)
		}
	}
	if v := r.text("balancing-after-refuse"); v == "0" {
		r.fatal("kernel_tiering = refuse turned NUMA balancing off")
	}
	return out
}

// checkTieringReport checks kernel_tiering = report, decoding into w and
// st: the daemon samples and plans, moves nothing and says why. It returns
// the last metrics scrape.
func (r *run) checkTieringReport(w *whereReport, st *statusReport) sample {
	r.t.Helper()
	r.decode("where-report", w)
	for i, n := range w.Arenas[0].Blocks {
		if n != 0 {
			r.fatal("kernel_tiering = report: block %d moved to node %d; blocks %s", i, n, blockString(w.Arenas[0].Blocks))
		}
	}
	r.decode("status-report", st)
	if st.Moving || st.KernelTiering.Mode != "report" || !strings.Contains(st.KernelTiering.Action, "report") {
		r.fatal("kernel_tiering = report: status says moving %v, kernel_tiering %+v", st.Moving, st.KernelTiering)
	}
	if v := r.text("balancing-after-report"); v == "0" {
		r.fatal("kernel_tiering = report turned NUMA balancing off")
	}
	s := r.series("scrape-report").last()
	r.requireMetric(s, "kvtier_migrated_pages_total", "kvtier_kernel_tiering_active", "kvtier_hint_blocks_total", "kvtier_moves_not_executed_total")
	switch {
	case s.sum("kvtier_migrated_pages_total") != 0:
		r.fatal("kernel_tiering = report: %s", s.labelled("kvtier_migrated_pages_total"))
	case s.get("kvtier_kernel_tiering_active") != 1:
		r.fatal("kernel_tiering = report: kvtier_kernel_tiering_active is %v, want 1", s.get("kvtier_kernel_tiering_active"))
	case s.get("kvtier_hint_blocks_total") == 0:
		r.fatal("kernel_tiering = report: no access counted (kvtier_hint_blocks_total 0): it must still sample")
	case s.get("kvtier_moves_not_executed_total") == 0:
		r.fatal("kernel_tiering = report: no planned move recorded as not executed; a 32 MiB arena over an 8 MiB budget needs demotions")
	}
	log := string(r.step("daemon-log-report").Output)
	if !regexp.MustCompile(`(?i)numa balancing`).MatchString(log) || !strings.Contains(log, "no moves") && !strings.Contains(log, "no page moves") {
		r.fatal("kernel_tiering = report: the log does not say why nothing moves:\n%s", log)
	}
	return s
}

// checkTieringDisable checks kernel_tiering = disable, decoding into w and
// st: balancing is off, the daemon moves, and after its restart its region
// is restored and the fast tier holds no more than the budget.
func (r *run) checkTieringDisable(w *whereReport, st *statusReport) {
	r.t.Helper()
	if v := r.text("balancing-after-disable"); v != "0" {
		r.fatal("kernel_tiering = disable: numa_balancing is %q afterwards, want 0", v)
	}
	r.decode("status-disable", st)
	if !st.Moving || st.KernelTiering.Action != "disabled" {
		r.fatal("kernel_tiering = disable: status says moving %v, kernel_tiering %+v", st.Moving, st.KernelTiering)
	}
	var restored []struct {
		ID     uint64 `json:"id"`
		Tenant string `json:"tenant"`
	}
	r.decode("regions-restored", &restored)
	if len(restored) != 1 || restored[0].Tenant != "a" {
		r.fatal("after the daemon's restart it has regions %+v, want the workload's, restored", restored)
	}
	r.decode("where-disable", w)
	fast := onNode(*w, seq(0, len(w.Arenas[0].Blocks)), 0)
	if len(fast)*2 > 8 {
		r.fatal("kernel_tiering = disable: %d blocks (2 MiB) on node 0, budget 8 MiB; blocks %s", len(fast), blockString(w.Arenas[0].Blocks))
	}
}

// checkBadReplies checks the daemon's reply to each malformed request of
// the probe against badRequests: a JSON error of the right status naming
// what was wrong.
func (r *run) checkBadReplies() {
	r.t.Helper()
	var got []struct {
		Name   string `json:"name"`
		Status int    `json:"status"`
		Reply  string `json:"reply"`
		Err    string `json:"err"`
	}
	r.decode("badinput", &got)
	if len(got) != len(badRequests) {
		r.fatal("the probe sent %d malformed requests, the test expects %d", len(got), len(badRequests))
	}
	for _, g := range got {
		want, ok := badRequests[g.Name]
		if !ok {
			r.fatal("no expectation for request %s", g.Name)
		}
		var body struct {
			Error string `json:"error"`
		}
		if g.Err != "" {
			r.t.Errorf("%s: the request failed: %s (did the daemon crash?)", g.Name, g.Err)
			continue
		}
		if err := json.Unmarshal([]byte(g.Reply), &body); err != nil || body.Error == "" {
			r.t.Errorf("%s: status %d with a reply that is not a JSON error: %q", g.Name, g.Status, g.Reply)
			continue
		}
		if g.Status != want.status {
			r.t.Errorf("%s: status %d, want %d; error %q", g.Name, g.Status, want.status, body.Error)
		}
		for _, w := range want.words {
			if !strings.Contains(strings.ToLower(body.Error), strings.ToLower(w)) {
				r.t.Errorf("%s: error %q does not name %q", g.Name, body.Error, w)
			}
		}
		r.t.Logf("%-20s %d %s", g.Name, g.Status, body.Error)
	}
}

// checkConfigCheck checks kvtier daemon --check: it names every mistake
// with file:line:col and exits 1 (a bad config is a failure, not a usage
// error: README's exit codes), and exits 0 for a good config.
func (r *run) checkConfigCheck() {
	r.t.Helper()
	check := r.text("check-bad")
	for _, want := range []string{"bad.hcl:2:", "epoch", "bad.hcl:3:", "kernel_tiering", "bad.hcl:6:", "fast_bytes", "bad.hcl:7:", "pages_per_epoch", "bad.hcl:10:", "no_such_policy", "exit=1"} {
		if !strings.Contains(check, want) {
			r.fatal("kvtier daemon --check of bad.hcl does not report %q:\n%s", want, check)
		}
	}
	if s := r.text("check-bad-syntax"); !regexp.MustCompile(`bad-syntax\.hcl:\d+:\d+`).MatchString(s) || !strings.HasSuffix(s, "exit=1") {
		r.fatal("kvtier daemon --check of bad-syntax.hcl: %q", s)
	}
	if s := r.text("check-good"); !strings.HasSuffix(s, "exit=0") {
		r.fatal("kvtier daemon --check of a good config: %q", s)
	}
}

// checkBadReload checks a SIGHUP with a bad config: the daemon keeps
// running the old one, its epoch loop goes on moving, and the failure is
// counted and logged with the file and line.
func (r *run) checkBadReload() {
	r.t.Helper()
	if r.text("alive-after-hup") != "alive" {
		r.fatal("the daemon died after a SIGHUP with a bad config")
	}
	var pol struct {
		Name string `json:"name"`
	}
	r.decode("policy-after-hup", &pol)
	if pol.Name != "lru" {
		r.fatal("after a bad reload the policy is %q, want the running lru", pol.Name)
	}
	var before, after statusReport
	r.decode("status-disable", &before)
	r.decode("status-after-hup", &after)
	if after.Epoch.Count <= before.Epoch.Count || !after.Moving {
		r.fatal("after the bad reload the epoch loop stopped (epochs %d then %d) or stopped moving (%v)", before.Epoch.Count, after.Epoch.Count, after.Moving)
	}
	s := r.series("scrape-disable").last()
	if s.get(`kvtier_config_reloads_total{result="error"}`) != 1 {
		r.fatal("kvtier_config_reloads_total: %s, want one error", s.labelled("kvtier_config_reloads_total"))
	}
	log := string(r.step("daemon-log-disable").Output)
	if !strings.Contains(log, "reload failed") || !strings.Contains(log, "tiering-disable.hcl:2:") {
		r.fatal("the daemon log does not say why the reload failed:\n%s", log)
	}
}
