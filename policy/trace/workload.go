package trace

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// WorkloadParams are the parameters of a synthetic workload. A zero field
// takes the workload's default, except Seed: 0 is a seed like any other.
// Each workload reads only the parameters it lists in WorkloadInfo.Params;
// setting another one is an error.
type WorkloadParams struct {
	Pages   int   // pages (blocks) in the workload's address space
	Steps   int   // accesses to generate (OpUpdate and OpFree records come on top)
	Seed    int64 // seeds every random choice
	Scalars int   // mean scalars per page (a page is Scalars*2 bytes at fp16)
	Jitter  int   // page scalars vary uniformly in Scalars +/- Jitter
	Period  int   // periodic_reuse: cycle length in steps
	Burst   int   // adversarial_burst, rag_burst: burst length in steps
	GapMin  int   // adversarial_burst: shortest revisit gap in steps
	GapMax  int   // adversarial_burst: longest revisit gap in steps
	Hot     int   // hot-set size in pages (mixed_locality, multi_tenant, rag_burst)
	Run     int   // prefetch_friendly: mean sequential run length in pages
	Tenants int   // multi_tenant: number of tenants
	Seqs    int   // reasoning: concurrent sequences
	Sinks   int   // long_context: attention-sink blocks, pinned
	Window  int   // long_context: recent-window blocks read every decode step
	Turns   int   // prefix_sharing: mean turns of a conversation
}

// paramFields maps spec keys to WorkloadParams fields, in spec order.
var paramFields = []struct {
	key, field, doc string
}{
	{"pages", "Pages", "pages (blocks) in the address space"},
	{"steps", "Steps", "accesses to generate"},
	{"seed", "Seed", "random seed"},
	{"scalars", "Scalars", "mean scalars per page (bytes = scalars x 2 at fp16)"},
	{"jitter", "Jitter", "page scalars vary in scalars +/- jitter"},
	{"period", "Period", "cycle length in steps"},
	{"burst", "Burst", "burst length in steps"},
	{"gap_min", "GapMin", "shortest revisit gap in steps"},
	{"gap_max", "GapMax", "longest revisit gap in steps"},
	{"hot", "Hot", "hot-set size in pages"},
	{"run", "Run", "mean sequential run length in pages"},
	{"tenants", "Tenants", "number of tenants"},
	{"seqs", "Seqs", "concurrent sequences"},
	{"sinks", "Sinks", "attention-sink blocks (pinned)"},
	{"window", "Window", "recent-window blocks read each decode step"},
	{"turns", "Turns", "mean turns of a conversation"},
}

func (p *WorkloadParams) field(key string) reflect.Value {
	for _, f := range paramFields {
		if f.key == key {
			return reflect.ValueOf(p).Elem().FieldByName(f.field)
		}
	}
	return reflect.Value{}
}

// WorkloadParam documents one parameter of a workload.
type WorkloadParam struct {
	Name    string // spec key
	Default int64  // value used when the parameter is zero or omitted
	Doc     string // one line
}

// WorkloadInfo describes a registered workload generator.
type WorkloadInfo struct {
	Name   string          // registry name, as in specs
	Doc    string          // one line; the constructor's doc comment has the construction
	Params []WorkloadParam // parameters the workload reads (seed is always read)
	new    func(p WorkloadParams) (Reader, error)
}

var (
	wlMu      sync.RWMutex
	workloads = map[string]WorkloadInfo{}
)

// registerWorkload adds a generator; defaults lists "key", value pairs.
// The common parameters pages, steps, scalars and jitter are always
// declared; scalars and jitter default to the seed study's 2048 +/- 64.
func registerWorkload(name, doc string, newFn func(WorkloadParams) (Reader, error), defaults ...any) {
	info := WorkloadInfo{Name: name, Doc: doc, new: newFn}
	d := map[string]int64{"scalars": 2048, "jitter": 64}
	keys := []string{"pages", "steps", "scalars", "jitter"}
	for i := 0; i+1 < len(defaults); i += 2 {
		k := defaults[i].(string)
		if _, ok := d[k]; !ok && k != "pages" && k != "steps" {
			keys = append(keys, k)
		}
		d[k] = int64(defaults[i+1].(int))
	}
	for _, f := range paramFields {
		for _, k := range keys {
			if k == f.key {
				info.Params = append(info.Params, WorkloadParam{Name: k, Default: d[k], Doc: f.doc})
			}
		}
	}
	wlMu.Lock()
	defer wlMu.Unlock()
	if _, dup := workloads[name]; dup {
		panic("trace: duplicate workload " + name)
	}
	workloads[name] = info
}

// Workloads returns every registered workload sorted by name.
func Workloads() []WorkloadInfo {
	wlMu.RLock()
	defer wlMu.RUnlock()
	out := make([]WorkloadInfo, 0, len(workloads))
	for _, w := range workloads {
		out = append(out, w)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// LookupWorkload returns the workload registered under name.
func LookupWorkload(name string) (WorkloadInfo, error) {
	wlMu.RLock()
	w, ok := workloads[name]
	wlMu.RUnlock()
	if !ok {
		return WorkloadInfo{}, fmt.Errorf("%w %q", ErrUnknownWorkload, name)
	}
	return w, nil
}

// Resolve fills p's zero parameters with the workload's defaults and
// rejects parameters the workload does not read.
func (w WorkloadInfo) Resolve(p WorkloadParams) (WorkloadParams, error) {
	declared := map[string]bool{"seed": true}
	for _, d := range w.Params {
		declared[d.Name] = true
		f := p.field(d.Name)
		if f.Int() == 0 {
			f.SetInt(d.Default)
		}
		if f.Int() < 0 {
			return p, fmt.Errorf("workload %s: %w: %s=%d: want >= 0", w.Name, ErrBadParam, d.Name, f.Int())
		}
	}
	for _, f := range paramFields {
		if !declared[f.key] && p.field(f.key).Int() != 0 {
			return p, fmt.Errorf("workload %s: %w: it has no parameter %s", w.Name, ErrBadParam, f.key)
		}
	}
	if p.Jitter >= p.Scalars {
		return p, fmt.Errorf("workload %s: %w: jitter=%d: want < scalars (%d)", w.Name, ErrBadParam, p.Jitter, p.Scalars)
	}
	return p, nil
}

// NewWorkload returns a fresh generator of the named workload. Zero
// parameters take the workload's defaults.
func NewWorkload(name string, p WorkloadParams) (Reader, error) {
	w, err := LookupWorkload(name)
	if err != nil {
		return nil, err
	}
	if p, err = w.Resolve(p); err != nil {
		return nil, err
	}
	r, err := w.new(p)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", name, err)
	}
	return r, nil
}

// WorkloadSpec is a parsed workload spec such as
// "periodic_reuse:pages=96,steps=640,period=11,seed=42".
type WorkloadSpec struct {
	Name   string         // registered workload name
	Params WorkloadParams // the spec's key=value pairs; zero fields take the defaults
}

// DefaultSeed is the seed of every kvtier command (trace gen, trace stats
// --workload, sim) for a workload whose spec gives no seed= and when
// --seed is not given, and sim's policy seed. WorkloadParams{} in Go still
// means seed 0.
const DefaultSeed int64 = 42

// ParseWorkload parses "name" or "name:key=value,...". Keys are the
// lowercase parameter names (pages, steps, seed, period, burst, gap_min,
// ...); values are integers.
func ParseWorkload(spec string) (WorkloadSpec, error) {
	ws, _, err := parseWorkload(spec)
	return ws, err
}

// ParseWorkloadSeed parses spec as ParseWorkload does and, unless the spec
// gives seed=, sets its seed to seed.
func ParseWorkloadSeed(spec string, seed int64) (WorkloadSpec, error) {
	ws, seen, err := parseWorkload(spec)
	if err == nil && !seen["seed"] {
		ws.Params.Seed = seed
	}
	return ws, err
}

// parseWorkload parses spec and returns the keys it gives.
func parseWorkload(spec string) (WorkloadSpec, map[string]bool, error) {
	name, rest, hasParams := strings.Cut(strings.TrimSpace(spec), ":")
	ws := WorkloadSpec{Name: strings.TrimSpace(name)}
	seen := map[string]bool{}
	if ws.Name == "" {
		return ws, seen, fmt.Errorf("workload spec %q: %w: empty name", spec, ErrBadParam)
	}
	if !hasParams {
		return ws, seen, nil
	}
	for i, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return ws, seen, fmt.Errorf("workload spec %q: parameter %d %q: %w: want key=value", spec, i+1, kv, ErrBadParam)
		}
		f := ws.Params.field(k)
		if !f.IsValid() {
			return ws, seen, fmt.Errorf("workload spec %q: %w: unknown parameter %s", spec, ErrBadParam, k)
		}
		if seen[k] {
			return ws, seen, fmt.Errorf("workload spec %q: %w: %s given twice", spec, ErrBadParam, k)
		}
		seen[k] = true
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || f.OverflowInt(n) {
			return ws, seen, fmt.Errorf("workload spec %q: %w: %s=%q: want an integer", spec, ErrBadParam, k, v)
		}
		f.SetInt(n)
	}
	return ws, seen, nil
}

// String formats the spec canonically: every non-zero parameter and the
// seed, in the order of the parameter table.
func (s WorkloadSpec) String() string {
	var b strings.Builder
	b.WriteString(s.Name)
	sep := byte(':')
	for _, f := range paramFields {
		v := s.Params.field(f.key).Int()
		if v == 0 && f.key != "seed" {
			continue
		}
		b.WriteByte(sep)
		sep = ','
		fmt.Fprintf(&b, "%s=%d", f.key, v)
	}
	return b.String()
}

// NewWorkloadSpec builds a fresh generator from a spec string.
func NewWorkloadSpec(spec string) (Reader, error) {
	ws, err := ParseWorkload(spec)
	if err != nil {
		return nil, err
	}
	return NewWorkload(ws.Name, ws.Params)
}
