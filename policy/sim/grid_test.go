package sim

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestGridSpecs(t *testing.T) {
	g, err := GridPreset("regret")
	if err != nil {
		t.Fatal(err)
	}
	specs := g.Specs()
	if len(specs) != 11 || specs[0] != "lru" || specs[1] != "cost_aware" ||
		specs[2] != "regret_aware:horizon=8,weight=1" || specs[10] != "regret_aware:horizon=64,weight=12" {
		t.Errorf("specs %v", specs)
	}
}

// The regret grid gives the same results in the same order on one worker
// and on several, and its artifacts are complete.
func TestRunGridDeterministic(t *testing.T) {
	g, _ := GridPreset("regret")
	g.Seeds = []int64{7}
	one, err := RunGrid(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	many, err := RunGrid(g, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != 11*2*3 || !reflect.DeepEqual(one, many) {
		t.Fatalf("%d results; one worker and four differ", len(one))
	}
	if one[0].Policy != "lru" || one[0].Scenario != "medium" || WorkloadName(one[0].Workload) != "chat_continuation" {
		t.Errorf("first result %s %s %s", one[0].Policy, one[0].Scenario, one[0].Workload)
	}
	dir := t.TempDir()
	files, err := WriteArtifacts(dir, Metadata{Grid: g, Version: "test"}, one)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4+3*3 {
		t.Errorf("%d files: %v", len(files), files)
	}
	f, err := os.Open(filepath.Join(dir, FileAggregate))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+11*2*3 || rows[1][4] != "1" {
		t.Errorf("aggregate rows %d, first %v", len(rows), rows[1])
	}
	svg, err := os.ReadFile(filepath.Join(dir, "adversarial_burst_latency.svg"))
	if err != nil || !strings.HasPrefix(string(svg), "<svg") || !strings.Contains(string(svg), "regret_aware:horizon=64,weight=12") {
		t.Errorf("svg: %v", err)
	}
}

func TestGridErrors(t *testing.T) {
	base, _ := GridPreset("regret")
	tests := map[string]func(g *Grid){
		"policy":   func(g *Grid) { g.Policies = []Sweep{{Name: "nope"}} },
		"param":    func(g *Grid) { g.Policies = []Sweep{{Name: "lru", Params: map[string][]string{"x": {"1"}}}} },
		"scenario": func(g *Grid) { g.Scenarios = []string{"huge"} },
		"workload": func(g *Grid) { g.Workloads = []string{"nope"} },
		"quant":    func(g *Grid) { g.Quants = []string{"fp4"} },
		"seeds":    func(g *Grid) { g.Seeds = nil },
	}
	for name, mod := range tests {
		g := base
		mod(&g)
		if _, err := RunGrid(g, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	for _, tt := range []struct{ name, text, want string }{
		{"unknown field", `{"name": "x", "polices": []}`, `g.json:1:`},
		{"syntax", "{\n  \"name\": \"x\",\n}", "g.json:3:1: invalid character '}'"},
		{"type", "{\"name\": \"x\",\n \"seeds\": \"7\"}", "g.json:2:14: json: cannot unmarshal string"},
		{"trailing", `{"name": "x"} {}`, "g.json:1:15: data after the grid's object"},
		{"stray bracket", `{"name": "x"}}`, "data after the grid's object"},
		{"stray square bracket", `{"name": "x"}]`, "data after the grid's object"},
	} {
		p := filepath.Join(t.TempDir(), "g.json")
		if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadGrid(p); !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrBadConfig and %q", tt.name, err, tt.want)
		}
	}
}
