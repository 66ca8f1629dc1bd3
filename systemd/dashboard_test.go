package systemd

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kvtier/kvtier/daemon"
	"github.com/kvtier/kvtier/internal/testutil"
)

const dashboardPath = "grafana/kvtier.json"

// grafanaDashboard is the part of Grafana's dashboard model the test
// checks.
type grafanaDashboard struct {
	Title         string         `json:"title"`
	UID           string         `json:"uid"`
	SchemaVersion int            `json:"schemaVersion"`
	Panels        []grafanaPanel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

type grafanaPanel struct {
	ID      int    `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title"`
	GridPos struct {
		X, Y, W, H int
	} `json:"gridPos"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

// daemonMetricNames maps the metric names the daemon declares, read from
// the factory calls in daemon/metrics.go (the daemon does not expose its
// registry), to the factory method that made them ("counterVec", ...),
// with the series names of histograms.
func daemonMetricNames(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("..", "daemon", "metrics.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{"counter": true, "counterVec": true, "gauge": true, "gaugeVec": true, "histogram": true}
	names := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		lit, isLit := call.Args[0].(*ast.BasicLit)
		if !ok || !kinds[sel.Sel.Name] || !isLit || lit.Kind != token.STRING {
			return true
		}
		name, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		name = "kvtier_" + name
		names[name] = sel.Sel.Name
		if sel.Sel.Name == "histogram" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[name+s] = sel.Sel.Name
			}
		}
		return true
	})
	if len(names) < 20 {
		t.Fatalf("found only %d metric names in daemon/metrics.go: has its factory changed?", len(names))
	}
	return names
}

// collectorNames lists what the Go and process collectors the daemon
// registers export.
func collectorNames(t *testing.T) map[string]bool {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range fams {
		names[f.GetName()] = true
	}
	return names
}

var metricRE = regexp.MustCompile(`\b((?:kvtier|go|process)_[a-zA-Z0-9_]+)`)

// TestDashboard checks the Grafana dashboard: panels with unique ids that
// fit the grid, queries with balanced brackets that read only metrics the
// daemon exports, and a panel for every kvtier_ family.
func TestDashboard(t *testing.T) {
	d := loadDashboard(t)
	known := collectorNames(t)
	for n := range daemonMetricNames(t) {
		known[n] = true
	}
	used := map[string]bool{}
	ids := map[int]bool{}
	check := func(where, expr string) {
		for _, m := range metricRE.FindAllStringSubmatch(expr, -1) {
			used[m[1]] = true
			if !known[m[1]] {
				t.Errorf("%s uses %s, which the daemon does not export", where, m[1])
			}
		}
	}
	for _, p := range d.Panels {
		where := "panel " + strconv.Quote(p.Title)
		if ids[p.ID] {
			t.Errorf("%s: duplicate id %d", where, p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.W <= 0 || p.GridPos.X+p.GridPos.W > 24 || p.GridPos.H <= 0 {
			t.Errorf("%s: gridPos %+v does not fit Grafana's 24 columns", where, p.GridPos)
		}
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s has no queries", where)
		}
		for _, tg := range p.Targets {
			if strings.TrimSpace(tg.Expr) == "" || tg.RefID == "" {
				t.Errorf("%s: a target without expr or refId", where)
			}
			if strings.Count(tg.Expr, "(") != strings.Count(tg.Expr, ")") || strings.Count(tg.Expr, "{") != strings.Count(tg.Expr, "}") {
				t.Errorf("%s: unbalanced brackets in %q", where, tg.Expr)
			}
			check(where, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		check("variable "+v.Name, v.Definition)
	}
	if missing := missingFamilies(known, used); len(missing) > 0 {
		t.Errorf("metric families the daemon exports without a dashboard panel: %v", missing)
	}
}

// loadDashboard reads the dashboard, which must be valid JSON with a
// title, a uid, a schema version and panels.
func loadDashboard(t *testing.T) grafanaDashboard {
	t.Helper()
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(raw) {
		t.Fatalf("%s is not valid JSON", dashboardPath)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion == 0 || len(d.Panels) == 0 {
		t.Fatalf("dashboard lacks title, uid, schemaVersion or panels: %+v", d)
	}
	return d
}

// missingFamilies lists the kvtier_ families in known that no query in used
// reads (a histogram counts when its _bucket series is read).
func missingFamilies(known, used map[string]bool) []string {
	var missing []string
	for n := range known {
		series := strings.HasSuffix(n, "_bucket") || strings.HasSuffix(n, "_sum") || strings.HasSuffix(n, "_count")
		if strings.HasPrefix(n, "kvtier_") && !series && !used[n] && !used[n+"_bucket"] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	return missing
}

// TestDefaultConfigOnThisHost starts the daemon with the shipped default
// config (socket and metrics address moved to temp ones): on a one-node
// host it must sample and report without moving anything, and say so. Its
// metrics are scraped to check that the names read from daemon/metrics.go
// are the ones it exports: every scraped kvtier_ family is declared, and
// every declared metric without labels is scraped (a vector shows up only
// once it has a child).
func TestDefaultConfigOnThisHost(t *testing.T) {
	needRoot(t, "the daemon loads BPF samplers")
	cfg, err := daemon.LoadConfig("kvtier.hcl")
	if err != nil {
		t.Fatalf("the default config does not load: %v", err)
	}
	cfg.StateDir = t.TempDir() // never /var/lib/kvtier
	var logs testutil.SyncBuffer
	d, err := daemon.New(cfg, daemon.Options{Socket: filepath.Join(t.TempDir(), "kvtier.sock"), MetricsAddr: "127.0.0.1:0",
		Version: "test", Logger: hclog.New(&hclog.LoggerOptions{Name: "kvtier", Output: &logs, Level: hclog.Info})})
	if err != nil {
		t.Fatalf("daemon.New with the default config: %v", err)
	}
	testutil.RunDaemon(t, d, &logs)
	// Ready is closed after the daemon logged what it does on this host.
	st := d.Status()
	if st.SingleNode && (st.Moving || !strings.Contains(logs.String(), "nothing moves")) {
		t.Errorf("one-node host: moving=%v, log when ready:\n%s", st.Moving, logs.String())
	}
	if st.KernelTiering.Mode != "report" || len(st.Samplers) != 1 {
		t.Errorf("default config status: %+v", st)
	}
	resp, err := http.Get("http://" + d.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	declared := daemonMetricNames(t)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the scrape: %v", err)
	}
	for name := range fams {
		if _, ok := declared[name]; strings.HasPrefix(name, "kvtier_") && !ok {
			t.Errorf("the daemon exports %s, which the parse of daemon/metrics.go missed", name)
		}
	}
	for name, kind := range declared {
		series := kind == "histogram" && (strings.HasSuffix(name, "_bucket") || strings.HasSuffix(name, "_sum") ||
			strings.HasSuffix(name, "_count"))
		if _, ok := fams[name]; !ok && !series && !strings.HasSuffix(kind, "Vec") {
			t.Errorf("daemon/metrics.go declares %s (%s), which the daemon does not export", name, kind)
		}
	}
}

func TestMissingFamilies(t *testing.T) {
	known := map[string]bool{"kvtier_a_total": true, "kvtier_h_seconds": true, "kvtier_h_seconds_bucket": true,
		"kvtier_h_seconds_sum": true, "kvtier_h_seconds_count": true, "go_goroutines": true}
	for _, tc := range []struct {
		name string
		used []string
		want []string
	}{
		{"nothing used", nil, []string{"kvtier_a_total", "kvtier_h_seconds"}},
		{"histogram through its buckets", []string{"kvtier_h_seconds_bucket"}, []string{"kvtier_a_total"}},
		{"everything", []string{"kvtier_a_total", "kvtier_h_seconds_bucket"}, nil},
		{"histogram sum only is not a panel of it", []string{"kvtier_a_total", "kvtier_h_seconds_sum"}, []string{"kvtier_h_seconds"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used := map[string]bool{}
			for _, u := range tc.used {
				used[u] = true
			}
			if got := missingFamilies(known, used); !slices.Equal(got, tc.want) {
				t.Errorf("missingFamilies = %v, want %v", got, tc.want)
			}
		})
	}
}
