package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/kvtier/kvtier/internal/jsonpos"
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// Sweep is one policy of a grid with parameter values to sweep: every
// combination of the listed values becomes one policy spec.
type Sweep struct {
	Name   string              `json:"name"`
	Params map[string][]string `json:"params,omitempty"`
}

// Grid is an ablation: every policy spec x scenario x workload x
// quantisation x seed is one run with a fresh policy. It is decoded from
// JSON (see the kvtier ablate help for an example).
type Grid struct {
	Name      string   `json:"name"`
	Preset    string   `json:"preset"`
	Mode      string   `json:"mode"`
	Policies  []Sweep  `json:"policies"`
	Scenarios []string `json:"scenarios"`
	// Workloads are workload specs without a seed
	// ("periodic_reuse:period=11"); each run sets the seed.
	Workloads []string `json:"workloads"`
	Quants    []string `json:"quants"`
	Seeds     []int64  `json:"seeds"`
	Prefetch  int      `json:"prefetch"`
	Horizon   int64    `json:"horizon"`
}

// GridPreset returns a built-in grid: regret (the seed study's ablation),
// baselines (every online policy on every workload) or quant (formats
// against policies on rag_burst and chat_continuation).
func GridPreset(name string) (Grid, error) {
	seeds := []int64{7, 42, 91}
	seedWorkloads := []string{"chat_continuation", "periodic_reuse", "adversarial_burst"}
	switch name {
	case "regret":
		return Grid{Name: "regret", Preset: "kvlab", Mode: "cache",
			Policies: []Sweep{{Name: "lru"}, {Name: "cost_aware"},
				{Name: "regret_aware", Params: map[string][]string{"weight": {"1", "6", "12"}, "horizon": {"8", "24", "64"}}}},
			Scenarios: []string{"medium", "constrained"}, Workloads: seedWorkloads,
			Quants: []string{"fp16"}, Seeds: seeds}, nil
	case "baselines":
		var sw []Sweep
		for _, in := range policy.List() {
			if !in.Offline && !in.Wrapper {
				sw = append(sw, Sweep{Name: in.Name})
			}
		}
		var wls []string
		for _, w := range trace.Workloads() {
			wls = append(wls, w.Name)
		}
		return Grid{Name: "baselines", Preset: "kvlab", Mode: "cache", Policies: sw,
			Scenarios: []string{"medium", "constrained"}, Workloads: wls, Quants: []string{"fp16"}, Seeds: seeds}, nil
	case "quant":
		return Grid{Name: "quant", Preset: "kvlab", Mode: "cache",
			Policies:  []Sweep{{Name: "lru"}, {Name: "cost_aware"}, {Name: "regret_aware"}},
			Scenarios: []string{"constrained"}, Workloads: []string{"rag_burst", "chat_continuation"},
			Quants: []string{"fp16", "fp8", "int8", "int4", "int2"}, Seeds: seeds}, nil
	}
	return Grid{}, fmt.Errorf("%w: grid preset %q: want regret, baselines or quant", ErrBadConfig, name)
}

// LoadGrid reads a JSON grid file; unknown fields are errors.
func LoadGrid(path string) (Grid, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Grid{}, fmt.Errorf("reading grid: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var g Grid
	if err := dec.Decode(&g); err != nil {
		line, col := jsonpos.LineCol(b, jsonpos.Offset(err, dec.InputOffset()))
		return Grid{}, fmt.Errorf("%w: grid %s:%d:%d: %w", ErrBadConfig, path, line, col, err)
	}
	if line, col, ok := jsonpos.Trailing(dec, b); ok {
		return Grid{}, fmt.Errorf("%w: grid %s:%d:%d: data after the grid's object", ErrBadConfig, path, line, col)
	}
	return g, nil
}

// Specs expands the policy sweeps into specs, in grid order, parameters
// varied last-key-fastest over sorted keys.
func (g Grid) Specs() []string {
	var out []string
	for _, s := range g.Policies {
		keys := make([]string, 0, len(s.Params))
		for k := range s.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		combos := []string{""}
		for _, k := range keys {
			var next []string
			for _, c := range combos {
				for _, v := range s.Params[k] {
					sep := ","
					if c == "" {
						sep = ""
					}
					next = append(next, c+sep+k+"="+v)
				}
			}
			combos = next
		}
		for _, c := range combos {
			if c == "" {
				out = append(out, s.Name)
			} else {
				out = append(out, s.Name+":"+c)
			}
		}
	}
	return out
}

// job is one run of a grid.
type job struct {
	cfg   Config
	trace *Trace
	group int // index of its reference group (same trace and setting)
}

// Validate checks names and values before anything runs.
func (g Grid) Validate() error {
	if len(g.Policies) == 0 || len(g.Scenarios) == 0 || len(g.Workloads) == 0 || len(g.Seeds) == 0 {
		return fmt.Errorf("%w: grid %q needs policies, scenarios, workloads and seeds", ErrBadConfig, g.Name)
	}
	if _, err := ParseMode(g.modeName()); err != nil {
		return err
	}
	for _, sp := range g.Specs() {
		if _, err := policy.New(sp, policy.Env{}); err != nil {
			return fmt.Errorf("%w: grid %q: %w", ErrBadConfig, g.Name, err)
		}
	}
	for _, q := range g.quants() {
		if _, err := ParseQuant(q); err != nil {
			return fmt.Errorf("%w: grid %q: %w", ErrBadConfig, g.Name, err)
		}
	}
	for _, s := range g.Scenarios {
		if _, err := NewHierarchy(g.Preset, s); err != nil {
			return err
		}
	}
	for _, w := range g.Workloads {
		ws, err := trace.ParseWorkload(w)
		if err == nil {
			_, err = trace.LookupWorkload(ws.Name)
		}
		if err != nil {
			return fmt.Errorf("%w: grid %q: %w", ErrBadConfig, g.Name, err)
		}
	}
	return nil
}

func (g Grid) modeName() string {
	if g.Mode == "" {
		return "cache"
	}
	return g.Mode
}

func (g Grid) quants() []string {
	if len(g.Quants) == 0 {
		return []string{"fp16"}
	}
	return g.Quants
}

// workloadTrace prepares a workload spec with a seed.
func workloadTrace(spec string, seed int64) (*Trace, error) {
	ws, err := trace.ParseWorkload(spec)
	if err != nil {
		return nil, err
	}
	ws.Params.Seed = seed
	name := ws.String()
	return Prepare(name, func() (trace.Reader, error) { return trace.NewWorkload(ws.Name, ws.Params) })
}

// RunGrid runs every cell of g on workers goroutines (0 means one per
// CPU) and returns the results in grid order: workload, scenario,
// quantisation, policy, seed. Each result carries the LRU and Bélády hit
// ratios of its (workload, seed, scenario, quantisation) group.
func RunGrid(g Grid, workers int) ([]Result, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	mode, _ := ParseMode(g.modeName())
	specs := g.Specs()
	traces := map[string]*Trace{}
	var jobs []job
	var refs []job // per group: lru, belady
	for _, w := range g.Workloads {
		for _, sc := range g.Scenarios {
			h, _ := NewHierarchy(g.Preset, sc)
			for _, qn := range g.quants() {
				q, _ := ParseQuant(qn)
				for _, seed := range g.Seeds {
					key := fmt.Sprintf("%s\x00%d", w, seed)
					tr := traces[key]
					if tr == nil {
						var err error
						if tr, err = workloadTrace(w, seed); err != nil {
							return nil, fmt.Errorf("grid %q: %w", g.Name, err)
						}
						traces[key] = tr
					}
					base := Config{Hierarchy: h, Mode: mode, Quant: q, Seed: seed, Prefetch: g.Prefetch, Horizon: g.Horizon}
					grp := len(refs) / 2
					for _, ref := range []string{RefLRU, RefBelady} {
						c := base
						c.Policy = ref
						if ref == RefBelady && c.Mode == ModeTiering {
							c.Mode = ModeCache
						}
						refs = append(refs, job{cfg: c, trace: tr, group: grp})
					}
					for _, sp := range specs {
						c := base
						c.Policy = sp
						jobs = append(jobs, job{cfg: c, trace: tr, group: grp})
					}
				}
			}
		}
	}
	all := append(refs, jobs...)
	results, err := runJobs(all, workers)
	if err != nil {
		return nil, err
	}
	out := results[len(refs):]
	for i := range out {
		grp := jobs[i].group
		SetReference(&out[i], results[2*grp].FastHitRatio, results[2*grp+1].FastHitRatio)
	}
	sortResults(out, g, specs)
	return out, nil
}

// sortResults orders results workload, scenario, quant, policy (grid
// order), seed.
func sortResults(rs []Result, g Grid, specs []string) {
	pos := func(list []string, s string) int {
		for i, x := range list {
			if x == s {
				return i
			}
		}
		return len(list)
	}
	wlOf := func(r Result) string { name, _, _ := strings.Cut(r.Workload, ":"); return name }
	var wls []string
	for _, w := range g.Workloads {
		name, _, _ := strings.Cut(w, ":")
		wls = append(wls, name)
	}
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if x, y := pos(wls, wlOf(a)), pos(wls, wlOf(b)); x != y {
			return x < y
		}
		if x, y := pos(g.Scenarios, a.Scenario), pos(g.Scenarios, b.Scenario); x != y {
			return x < y
		}
		if x, y := pos(g.quants(), a.Quant), pos(g.quants(), b.Quant); x != y {
			return x < y
		}
		if x, y := pos(specs, a.Policy), pos(specs, b.Policy); x != y {
			return x < y
		}
		return a.Seed < b.Seed
	})
}

// runJobs runs jobs on workers goroutines; results keep the jobs' order.
func runJobs(jobs []job, workers int) ([]Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]Result, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range min(workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(jobs) {
					return
				}
				results[i], errs[i] = Run(jobs[i].cfg, jobs[i].trace)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("run %s on %s: %w", jobs[i].cfg.Policy, jobs[i].trace.Name, err)
		}
	}
	return results, nil
}
