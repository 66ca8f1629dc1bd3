package sim

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/kvtier/kvtier/policy"
)

// NeedsNext reports whether the policy of spec reads Block.Next, the
// future: its registry Info says Offline, or it is a wrapper whose inner
// policy (given or the declared default) does. Only such a run makes the
// simulator compute a trace's next uses. An unknown or malformed spec
// reports false: building the policy reports its error.
func NeedsNext(spec string) bool {
	sp, err := policy.ParseSpec(spec)
	if err != nil {
		return false
	}
	for depth := 0; depth < 8; depth++ {
		info, err := policy.Lookup(sp.Name)
		if err != nil {
			return false
		}
		if info.Offline {
			return true
		}
		if !info.Wrapper {
			return false
		}
		inner, ok := sp.Params["inner"]
		if !ok {
			inner = declaredDefault(info, "inner")
		}
		if inner == "" {
			return false
		}
		rest := map[string]string{}
		for k, v := range sp.Params {
			if k != "inner" {
				rest[k] = v
			}
		}
		sp = policy.Spec{Name: inner, Params: rest}
	}
	return false
}

// declaredDefault returns the default of parameter name of a policy, ""
// when it declares none.
func declaredDefault(info policy.Info, name string) string {
	for _, p := range info.Params {
		if p.Name == name {
			return p.Default
		}
	}
	return ""
}

// References says which reference rows Compare adds besides the asked
// policies: LRU and Bélády's offline optimum. A reference asked as a
// policy too runs and is printed once.
type References struct {
	LRU, Belady bool
}

// AllReferences adds both reference rows, what Compare does.
var AllReferences = References{LRU: true, Belady: true}

// ParseReferences parses a comma list of references: "lru,belady", "lru",
// "belady" or "none".
func ParseReferences(s string) (References, error) {
	var r References
	for _, p := range strings.Split(s, ",") {
		switch strings.TrimSpace(p) {
		case RefLRU:
			r.LRU = true
		case RefBelady:
			r.Belady = true
		case "none":
		default:
			return References{}, fmt.Errorf("%w: reference %q: want lru, belady, lru,belady or none", ErrBadConfig, p)
		}
	}
	return r, nil
}

// String formats r as ParseReferences reads it.
func (r References) String() string {
	switch {
	case r.LRU && r.Belady:
		return RefLRU + "," + RefBelady
	case r.LRU:
		return RefLRU
	case r.Belady:
		return RefBelady
	}
	return "none"
}

// Compare runs every policy under base on t, plus LRU and Bélády (in
// tiering mode Bélády runs in cache mode on the same tiers: the planner
// takes online policies only), and fills each result's reference hit
// ratios and headroom share. It is CompareWith(base, policies,
// AllReferences, t).
func Compare(base Config, policies []string, t *Trace) ([]Result, error) {
	return CompareWith(base, policies, AllReferences, t)
}

// CompareWith runs every policy under base on t, plus the references refs
// asks for, which come last. A reference asked as a policy under the same
// mode (lru; belady outside tiering mode) is not run twice: its policy row
// serves. Each result's reference hit ratios and headroom share are filled
// when both an LRU and a Bélády row are there. A policy whose run fails is
// left out and its error joined into the returned one, so the other rows
// are still returned; a failed reference returns no rows. The runs are
// independent and run in parallel, up to GOMAXPROCS at a time; the rows
// come in the order above whatever order they finish in.
func CompareWith(base Config, policies []string, refs References, t *Trace) ([]Result, error) {
	cfgs := make([]Config, 0, len(policies)+2)
	for _, p := range policies {
		cfg := base
		cfg.Policy = p
		cfgs = append(cfgs, cfg)
	}
	asked := map[string]bool{}
	for _, p := range policies {
		asked[p] = p == RefLRU || (p == RefBelady && base.Mode != ModeTiering)
	}
	for _, ref := range refConfigs(base, refs) {
		if !asked[ref.Policy] {
			cfgs = append(cfgs, ref)
		}
	}
	rs, runErrs := runParallel(cfgs, t)
	var out []Result
	var errs []error
	found := map[string]int{}
	for i, cfg := range cfgs {
		isRef := i >= len(policies)
		switch {
		case runErrs[i] != nil && isRef:
			return nil, runErrs[i]
		case runErrs[i] != nil:
			errs = append(errs, runErrs[i])
			continue
		case isRef || asked[cfg.Policy]:
			found[cfg.Policy] = len(out)
		}
		out = append(out, rs[i])
	}
	// A reference asked as a policy whose run failed runs as a reference.
	for _, ref := range refConfigs(base, refs) {
		if _, ok := found[ref.Policy]; ok || !asked[ref.Policy] {
			continue
		}
		r, err := Run(ref, t)
		if err != nil {
			return nil, err
		}
		found[ref.Policy] = len(out)
		out = append(out, r)
	}
	li, lok := found[RefLRU]
	bi, bok := found[RefBelady]
	if lok && bok {
		lru, bel := out[li].FastHitRatio, out[bi].FastHitRatio
		for i := range out {
			SetReference(&out[i], lru, bel)
		}
	}
	return out, errors.Join(errs...)
}

// refConfigs returns the runs of the references refs asks for: LRU, then
// Bélády (in cache mode when base is tiering: the planner takes online
// policies only).
func refConfigs(base Config, refs References) []Config {
	var out []Config
	for _, ref := range []struct {
		name string
		want bool
	}{{RefLRU, refs.LRU}, {RefBelady, refs.Belady}} {
		if !ref.want {
			continue
		}
		cfg := base
		cfg.Policy = ref.name
		cfg.Moves = nil // references are not the runs asked for
		if ref.name == RefBelady && cfg.Mode == ModeTiering {
			cfg.Mode = ModeCache
		}
		out = append(out, cfg)
	}
	return out
}

// runParallel runs every setting on t, up to GOMAXPROCS at a time, and
// returns each one's result and error by index.
func runParallel(cfgs []Config, t *Trace) ([]Result, []error) {
	rs := make([]Result, len(cfgs))
	errs := make([]error, len(cfgs))
	next := make(chan int, len(cfgs))
	for i := range cfgs {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(cfgs)) {
		wg.Go(func() {
			for i := range next {
				rs[i], errs[i] = Run(cfgs[i], t)
			}
		})
	}
	wg.Wait()
	return rs, errs
}
