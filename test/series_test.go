//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
)

// sample is one scrape of the daemon's metrics by the probe (probe scrape).
type sample struct {
	T    float64            `json:"t"`
	Unix float64            `json:"unix"`
	M    map[string]float64 `json:"m"`
	Err  string             `json:"err"`
}

// series is a daemon's metrics as sampled by the probe, in time order, only
// the scrapes that succeeded.
type series []sample

// series decodes a recorded scrape: one JSON sample a line, each listing
// only the series that changed since the previous one.
func (r *run) series(step string) series {
	r.t.Helper()
	var out series
	cur := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(r.step(step).Output))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var s sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			r.fatal("%s: %v in %q", step, err, truncate(sc.Text(), 200))
		}
		if s.Err == "" && s.M != nil {
			for k, v := range s.M {
				cur[k] = v
			}
			s.M = maps.Clone(cur)
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		r.fatal("%s: no successful scrape of the daemon's metrics", step)
	}
	return out
}

// last is the final scrape.
func (s series) last() sample { return s[len(s)-1] }

// get returns a metric by name; names with labels are written as the
// exposition has them: kvtier_blocks{tier="fast"}.
func (s sample) get(name string) float64 { return s.M[name] }

// sum adds every series of a metric family (all label values).
func (s sample) sum(family string) float64 {
	v := 0.0
	for k, x := range s.M {
		if k == family || strings.HasPrefix(k, family+"{") {
			v += x
		}
	}
	return v
}

// has reports whether the metric family exists at all.
func (s sample) has(family string) bool {
	for k := range s.M {
		if k == family || strings.HasPrefix(k, family+"{") {
			return true
		}
	}
	return false
}

// labelled lists the series of a family with their values, sorted, for
// messages.
func (s sample) labelled(family string) string {
	var out []string
	for k, x := range s.M {
		if k == family || strings.HasPrefix(k, family+"{") {
			out = append(out, fmt.Sprintf("%s=%s", strings.TrimPrefix(k, family), strconv.FormatFloat(x, 'f', -1, 64)))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// requireMetric fails unless the daemon exports family: a renamed metric
// must fail loudly, not make an assertion vacuous.
func (r *run) requireMetric(s sample, families ...string) {
	r.t.Helper()
	for _, f := range families {
		if !s.has(f) {
			r.fatal("the daemon exports no %s metric (renamed? see daemon/metrics.go)", f)
		}
	}
}
