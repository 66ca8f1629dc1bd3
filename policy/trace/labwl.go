package trace

import (
	"fmt"
	"io"
	"sort"

	"github.com/kvtier/kvtier/policy"
)

// The generators of the seed's harness, kv-hierarchy-lab
// (github.com/manishklach/kv-hierarchy-lab, kv_hierarchy_lab/workloads/
// synthetic.py), written anew so that a seed yields the lab's trace access
// for access: the same Python random draws (pyrand.go) in the same order,
// the same page sizes. They back the lab-compatible preset of the
// simulator (package sim/lab). kvtier's own workloads of the same names
// (seedwl.go, morewl.go) are different generators.

// LabParams are the parameters of a lab workload. A zero field takes the
// lab's default (LabDefaults), except Seed, which is always used as given.
type LabParams struct {
	Pages  int   // num_pages
	Length int   // accesses
	Period int   // periodic_reuse
	Burst  int   // adversarial_burst: burst_size
	Seed   int64 // Python random seed, >= 0
	// BytesPerScalar is the quantisation's footprint (2 for fp16, the
	// default; 1 fp8, 0.5 int4, 0.25 int2).
	BytesPerScalar float64
}

// LabTrace is a lab workload: the size of every page and the page read at
// every step.
type LabTrace struct {
	Name     string
	Sizes    []int64 // bytes of page i
	Accesses []int   // page index of each step
}

type labGen struct {
	def     LabParams
	scalars int // base_scalars of the pages
	gen     func(p LabParams, r *pyRandom) []int
}

var labGens = map[string]labGen{
	"chat_continuation":    {LabParams{Pages: 64, Length: 256, Seed: 7}, 2048, labChat},
	"rag_burst":            {LabParams{Pages: 96, Length: 320, Seed: 11}, 2304, labRAG},
	"periodic_reuse":       {LabParams{Pages: 80, Length: 320, Period: 9, Seed: 13}, 2048, labPeriodic},
	"long_tail_mix":        {LabParams{Pages: 128, Length: 400, Seed: 17}, 2048, labLongTail},
	"prefetch_friendly":    {LabParams{Pages: 48, Length: 240, Seed: 19}, 2048, labPrefetch},
	"adversarial_prefetch": {LabParams{Pages: 64, Length: 256, Seed: 23}, 2048, labAdvPrefetch},
	"adversarial_burst":    {LabParams{Pages: 96, Length: 320, Burst: 12, Seed: 29}, 2112, labAdvBurst},
	"mixed_locality":       {LabParams{Pages: 112, Length: 360, Seed: 31}, 2176, labMixed},
}

// LabWorkloads lists the lab's workload names, sorted.
func LabWorkloads() []string {
	out := make([]string, 0, len(labGens))
	for n := range labGens {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// LabDefaults returns the lab's default parameters of a workload
// (including its default seed).
func LabDefaults(name string) (LabParams, error) {
	g, ok := labGens[name]
	if !ok {
		return LabParams{}, fmt.Errorf("%w: lab workload %q (want one of %v)", ErrUnknownWorkload, name, LabWorkloads())
	}
	return g.def, nil
}

// LabWorkload builds a lab workload.
func LabWorkload(name string, p LabParams) (LabTrace, error) {
	g, ok := labGens[name]
	if !ok {
		return LabTrace{}, fmt.Errorf("%w: lab workload %q (want one of %v)", ErrUnknownWorkload, name, LabWorkloads())
	}
	p = p.withDefaults(g.def)
	if err := p.check(name); err != nil {
		return LabTrace{}, err
	}
	t := LabTrace{Name: name, Sizes: labSizes(p, g.scalars)}
	t.Accesses = g.gen(p, newPyRandom(uint64(p.Seed)))
	return t, nil
}

func (p LabParams) withDefaults(d LabParams) LabParams {
	if p.Pages == 0 {
		p.Pages = d.Pages
	}
	if p.Length == 0 {
		p.Length = d.Length
	}
	if p.Period == 0 {
		p.Period = d.Period
	}
	if p.Burst == 0 {
		p.Burst = d.Burst
	}
	if p.BytesPerScalar == 0 {
		p.BytesPerScalar = 2
	}
	return p
}

func (p LabParams) check(name string) error {
	switch {
	case p.Pages < 2 || p.Pages > 1<<20:
		return fmt.Errorf("%w: lab %s: pages=%d: want 2..%d", ErrBadParam, name, p.Pages, 1<<20)
	case p.Length < 0 || p.Length > 1<<24:
		return fmt.Errorf("%w: lab %s: length=%d: want 0..%d", ErrBadParam, name, p.Length, 1<<24)
	case p.Seed < 0:
		return fmt.Errorf("%w: lab %s: seed=%d: want >= 0", ErrBadParam, name, p.Seed)
	case p.Period < 0 || p.Burst < 0 || p.BytesPerScalar < 0:
		return fmt.Errorf("%w: lab %s: period, burst and bytes per scalar must be >= 0", ErrBadParam, name)
	case name == "adversarial_burst" && (p.Pages < 3 || p.Burst < 1):
		return fmt.Errorf("%w: lab %s: want pages >= 3 and burst >= 1", ErrBadParam, name)
	case name == "mixed_locality" && p.Pages < 13, name == "rag_burst" && p.Pages < 22, name == "long_tail_mix" && p.Pages < 11:
		return fmt.Errorf("%w: lab %s: pages=%d: too few for its hot set", ErrBadParam, name, p.Pages)
	}
	return nil
}

// labSizes is _build_pages: its own Random(seed), one randint(-64, 64) per
// page added to the base scalars, times the bytes per scalar, truncated.
func labSizes(p LabParams, scalars int) []int64 {
	r := newPyRandom(uint64(p.Seed))
	sizes := make([]int64, p.Pages)
	for i := range sizes {
		n := max(1, scalars+r.randint(-64, 64))
		sizes[i] = max(1, int64(float64(n)*p.BytesPerScalar))
	}
	return sizes
}

// Reader replays the lab trace as kvtier records: one access per step,
// block = page index, Meta.Size = the page's bytes (sim scales sizes as
// fp16 bytes, so build the trace at fp16 to replay it through sim).
func (t LabTrace) Reader() Reader { return &labReader{t: t} }

type labReader struct {
	t LabTrace
	i int
}

func (r *labReader) Next() (Record, error) {
	if r.i >= len(r.t.Accesses) {
		return Record{}, io.EOF
	}
	p := r.t.Accesses[r.i]
	rec := Record{Op: OpAccess, Time: int64(r.i), Block: uint64(p),
		Meta: policy.Meta{Size: r.t.Sizes[p], Priority: policy.PriorityNormal, RefCount: 1}}
	r.i++
	return rec, nil
}
