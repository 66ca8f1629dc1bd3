package sim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// policyParams splits a policy name into its family and numeric
// parameters. It reads kvtier specs ("regret_aware:horizon=8,weight=1",
// also as "kvtier:SPEC" in the lab model) and the lab's names
// ("regret_aware_w6.0_h24": weight and horizon).
func policyParams(name string) (string, map[string]float64) {
	name = strings.TrimPrefix(name, "kvtier:")
	ps := map[string]float64{}
	if fam, rest, ok := strings.Cut(name, ":"); ok {
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				ps[strings.TrimSpace(k)] = x
			}
		}
		return fam, ps
	}
	// The lab's names: family_w<weight>_h<horizon>.
	parts := strings.Split(name, "_")
	fam := name
	for i := len(parts) - 1; i > 0; i-- {
		p := parts[i]
		key := map[byte]string{'w': "weight", 'h': "horizon"}[p[0]]
		x, err := strconv.ParseFloat(p[1:], 64)
		if key == "" || err != nil {
			break
		}
		ps[key] = x
		fam = strings.Join(parts[:i], "_")
	}
	return fam, ps
}

// shortFamilies are the short names of policy families in plot labels.
var shortFamilies = map[string]string{"lru": "LRU", "regret_aware": "regret", "belady": "Bélády"}

// shortPolicy is a policy's label in plots: "regret w12 h24" for
// regret_aware:horizon=24,weight=12 or the lab's regret_aware_w12.0_h24,
// "LRU" for lru; other parameters keep their names.
func shortPolicy(name string) string {
	fam, ps := policyParams(name)
	if s, ok := shortFamilies[fam]; ok {
		fam = s
	}
	keys := make([]string, 0, len(ps))
	for k := range ps {
		keys = append(keys, k)
	}
	// weight before horizon, then the rest by name.
	rank := func(k string) string {
		switch k {
		case "weight":
			return "0"
		case "horizon":
			return "1"
		}
		return "2" + k
	}
	sort.Slice(keys, func(i, j int) bool { return rank(keys[i]) < rank(keys[j]) })
	out := []string{fam}
	for _, k := range keys {
		v := strconv.FormatFloat(ps[k], 'g', 4, 64)
		switch k {
		case "weight":
			out = append(out, "w"+v)
		case "horizon":
			out = append(out, "h"+v)
		default:
			out = append(out, k+"="+v)
		}
	}
	return strings.Join(out, " ")
}

// byteUnit returns the binary unit that shows byte counts up to max with
// a few digits: its size and name (B, KiB, MiB, GiB, TiB).
func byteUnit(max float64) (float64, string) {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	div := 1.0
	for _, u := range units {
		if max < div*1024 || u == "TiB" {
			return div, u
		}
		div *= 1024
	}
	return div, "TiB"
}

// seedNote explains the error bars of aggregates over seeds: "mean ± std
// over 3 seeds", or that there are none with one seed.
func seedNote(as []Aggregate) string {
	lo, hi := math.MaxInt, 0
	for _, a := range as {
		lo, hi = min(lo, a.Runs), max(hi, a.Runs)
	}
	switch {
	case hi <= 1:
		return "one seed: no error bars"
	case lo == hi:
		return fmt.Sprintf("error bars: mean ± std over %d seeds", hi)
	}
	return fmt.Sprintf("error bars: mean ± std over %d-%d seeds", lo, hi)
}

// distinct returns the distinct values of f over as in order of first
// appearance.
func distinct(as []Aggregate, f func(Aggregate) string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range as {
		if k := f(a); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
