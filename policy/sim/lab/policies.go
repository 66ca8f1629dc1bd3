package lab

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// chooser is a policy of the lab model. It hears every access, the lab's
// on_insert (a cold insertion into the slowest tier, a promotion into tier
// 0) and on_evict (an eviction out of any tier), and also every page
// entering (entered) or leaving (left) a tier by any move; it picks a
// victim among the resident pages of a tier, listed in the order they
// entered it. Pages are indices into the trace's page table. The lab's
// policies choose with Python's min(): the first page of lowest score wins
// a tie, so the order of the candidates matters; they ignore entered and
// left.
type chooser interface {
	access(page, step int)
	inserted(page, step int)
	evicted(page, step int)
	entered(page, tier, step int)
	left(page, tier, step int)
	victim(tier int, cands []int, step int) int // index into cands
}

// labHooks gives the lab's policies the hooks they ignore.
type labHooks struct{}

func (labHooks) entered(int, int, int) {}
func (labHooks) left(int, int, int)    {}

// Policy names the lab's policies understand.
const (
	PolicyLRU    = "lru"
	PolicyCost   = "cost_aware"
	PolicyRegret = "regret_aware"
	PolicyKvtier = "kvtier" // prefix of a kvtier policy spec
	// The lab's other policies; predictive is the one that prefetches.
	PolicyPredictive = "predictive"
	PolicyHeavy      = "heavy_hitter"
	PolicyWindowed   = "windowed_recency"
)

// Spec is a parsed lab policy: a name and, for regret_aware, its weights;
// or, with Name "kvtier", a kvtier policy spec (Kvtier).
type Spec struct {
	Name          string
	Kvtier        string  // a kvtier policy spec (policy.New)
	Weight        float64 // regret_weight, default 6
	Horizon       int     // regret_horizon, default 24
	Decay         float64 // default 0.98
	FreqWeight    float64 // default 1.5
	RecencyWeight float64 // default 1
	// predictive: max_prefetches and min_confidence, default 2 and 2.
	MaxPrefetches, MinConfidence int
}

// ParseSpec parses the lab's policies: "lru", "cost_aware",
// "heavy_hitter", "windowed_recency", "belady" (belady.go), "predictive"
// with optional max_prefetches and min_confidence
// ("predictive:max_prefetches=1"), and "regret_aware" with optional
// parameters in kvtier's spec syntax: "regret_aware:weight=12,horizon=24"
// (also decay, freq_weight, recency_weight). A spec
// "kvtier:SPEC" runs kvtier's policy SPEC (any of `kvtier policies`) in
// the lab model, one instance per tier (see kvtierChooser).
func ParseSpec(s string) (Spec, error) {
	if ks, ok := strings.CutPrefix(s, "kvtier:"); ok {
		if _, err := policy.New(ks, policy.Env{CapacityBytes: 1 << 20}); err != nil {
			return Spec{}, fmt.Errorf("%w: %w", ErrBadSpec, err)
		}
		return Spec{Name: PolicyKvtier, Kvtier: ks}, nil
	}
	name, params, _ := strings.Cut(s, ":")
	sp := Spec{Name: name, Weight: 6, Horizon: 24, Decay: 0.98, FreqWeight: 1.5, RecencyWeight: 1,
		MaxPrefetches: defaultMaxPrefetches, MinConfidence: defaultMinConfidence}
	switch name {
	case PolicyLRU, PolicyCost, PolicyHeavy, PolicyWindowed, PolicyBelady:
		if params != "" {
			return Spec{}, fmt.Errorf("%w: %s takes no parameters", ErrBadSpec, name)
		}
		return sp, nil
	case PolicyRegret, PolicyPredictive:
	default:
		return Spec{}, fmt.Errorf("%w: policy %q: want lru, cost_aware, regret_aware, predictive, "+
			"heavy_hitter, windowed_recency or belady", ErrBadSpec, name)
	}
	for kv := range strings.SplitSeq(params, ",") {
		if kv == "" {
			continue
		}
		if err := sp.set(kv); err != nil {
			return Spec{}, err
		}
	}
	return sp, nil
}

func (sp *Spec) set(kv string) error {
	k, v, _ := strings.Cut(kv, "=")
	if sp.Name == PolicyPredictive {
		return sp.setPredictive(k, v)
	}
	if k == "horizon" {
		h, err := strconv.Atoi(v)
		if err != nil || h < 1 {
			return fmt.Errorf("%w: horizon=%q: want an integer >= 1", ErrBadSpec, v)
		}
		sp.Horizon = h
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return fmt.Errorf("%w: %s=%q: want a finite number >= 0", ErrBadSpec, k, v)
	}
	switch k {
	case "weight":
		sp.Weight = f
	case "decay":
		sp.Decay = f
	case "freq_weight":
		sp.FreqWeight = f
	case "recency_weight":
		sp.RecencyWeight = f
	default:
		return fmt.Errorf("%w: regret_aware has no parameter %q", ErrBadSpec, k)
	}
	return nil
}

func (sp *Spec) setPredictive(k, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("%w: predictive %s=%q: want an integer >= 0", ErrBadSpec, k, v)
	}
	switch k {
	case "max_prefetches":
		sp.MaxPrefetches = n
	case "min_confidence":
		sp.MinConfidence = n
	default:
		return fmt.Errorf("%w: predictive has no parameter %q (want max_prefetches, min_confidence)", ErrBadSpec, k)
	}
	return nil
}

// LabName is the name the lab's ablation gives the policy:
// regret_aware_w6.0_h24 for regret_aware (weight as Python prints a float);
// predictive with other than the lab's defaults is predictive_m1_c2
// (max_prefetches 1, min_confidence 2).
func (sp Spec) LabName() string {
	switch {
	case sp.Name == PolicyKvtier:
		return PolicyKvtier + ":" + sp.Kvtier
	case sp.Name == PolicyPredictive && (sp.MaxPrefetches != defaultMaxPrefetches || sp.MinConfidence != defaultMinConfidence):
		return fmt.Sprintf("predictive_m%d_c%d", sp.MaxPrefetches, sp.MinConfidence)
	case sp.Name != PolicyRegret:
		return sp.Name
	}
	w := strconv.FormatFloat(sp.Weight, 'f', -1, 64)
	if !strings.ContainsAny(w, ".e") {
		w += ".0"
	}
	return fmt.Sprintf("regret_aware_w%s_h%d", w, sp.Horizon)
}

func (sp Spec) chooser(h sim.Hierarchy, lt trace.LabTrace, seed int64) (chooser, error) {
	sizes := lt.Sizes
	switch sp.Name {
	case PolicyKvtier:
		return newKvtierChooser(sp.Kvtier, h, lt, seed)
	case PolicyLRU:
		return newLRU(len(sizes)), nil
	case PolicyCost:
		return newCost(sizes), nil
	case PolicyHeavy:
		return newHeavyHitter(len(sizes)), nil
	case PolicyWindowed:
		return newWindowed(len(sizes)), nil
	case PolicyPredictive:
		return newPredictive(len(sizes), sp.MaxPrefetches, sp.MinConfidence), nil
	case PolicyBelady:
		return newBelady(lt), nil
	}
	return newRegret(sp, len(sizes)), nil
}

func filled(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// argmin returns the index of the first lowest score, as Python's min().
func argmin(cands []int, score func(page int) float64) int {
	best, bs := 0, score(cands[0])
	for i := 1; i < len(cands); i++ {
		if s := score(cands[i]); s < bs {
			best, bs = i, s
		}
	}
	return best
}

// recencyTerm is recency_weight * last / max(step, 1), rounded as Python
// rounds it (the conversions keep Go from fusing a multiply and an add).
func recencyTerm(w float64, last, step int) float64 {
	return float64(w*float64(last)) / float64(max(step, 1))
}

// lru keys a page by the step of its last access or insertion (-1 never).
type lru struct {
	labHooks
	last []int
}

func newLRU(n int) *lru { return &lru{last: filled(n, -1)} }

func (p *lru) access(page, step int)   { p.last[page] = step }
func (p *lru) inserted(page, step int) { p.last[page] = step }
func (p *lru) evicted(int, int)        {}
func (p *lru) victim(_ int, cands []int, _ int) int {
	return argmin(cands, func(pg int) float64 { return float64(p.last[pg]) })
}

// cost is the lab's cost_aware: 2*frequency + recency - 0.4*KiB.
type cost struct {
	labHooks
	freq, last []int
	sizes      []int64
}

func newCost(sizes []int64) *cost {
	return &cost{freq: make([]int, len(sizes)), last: filled(len(sizes), -1), sizes: sizes}
}

func (p *cost) access(page, step int) { p.freq[page]++; p.last[page] = step }
func (p *cost) inserted(int, int)     {}
func (p *cost) evicted(int, int)      {}
func (p *cost) victim(_ int, cands []int, step int) int {
	return argmin(cands, func(pg int) float64 {
		f := float64(2.0 * float64(p.freq[pg]))
		size := float64(0.4 * (float64(p.sizes[pg]) / 1024.0))
		return float64(f+recencyTerm(1.0, p.last[pg], step)) - size
	})
}
