package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// row is one figure of one benchmark: its values, one a round, for each
// build.
type row struct {
	fig   figure
	bench string
	vals  [][]float64 // per build, per round
}

// table holds the rows in the order their figures first appeared.
type table struct {
	builds int
	rows   []*row
	index  map[string]*row
}

func newTable(builds int) *table { return &table{builds: builds, index: map[string]*row{}} }

// add records the figures of s that results carry, for build bi.
func (t *table) add(bi int, s suite, results []result) {
	for _, fig := range s.figures {
		for _, r := range results {
			v, ok := r.figures[fig.unit]
			if !ok || !fig.bench.MatchString(r.name) {
				continue
			}
			key := fig.label + "\x00" + r.name
			rw := t.index[key]
			if rw == nil {
				rw = &row{fig: fig, bench: r.name, vals: make([][]float64, t.builds)}
				t.index[key] = rw
				t.rows = append(t.rows, rw)
			}
			rw.vals[bi] = append(rw.vals[bi], fig.shown(v))
		}
	}
}

// errNoFigure is a figure no benchmark reported: a benchmark renamed or
// removed would otherwise drop its target from the table unseen.
var errNoFigure = errors.New("no benchmark reported the figure")

// check returns an error for each figure of the suites that no row has
// (those of 10M runs only when they ran).
func (t *table) check(sel []suite, small bool) error {
	var errs []error
	for _, s := range sel {
		for _, fig := range s.figures {
			if fig.big && small {
				continue
			}
			if !slices.ContainsFunc(t.rows, func(r *row) bool { return r.fig.label == fig.label }) {
				errs = append(errs, fmt.Errorf("%w: %s (%s %s in suite %s)", errNoFigure, fig.label,
					fig.bench, fig.unit, s.name))
			}
		}
	}
	return errors.Join(errs...)
}

// writeHeader says what was run, where and when.
func writeHeader(w io.Writer, o options, builds []*build) {
	rev, _ := gitOutput(builds[0].root, "describe", "--always", "--dirty")
	loadavg, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(w, "scalebench: %s, %d round(s), new = %s", time.Now().UTC().Format(time.RFC3339), o.rounds, rev)
	if len(builds) > 1 {
		fmt.Fprintf(w, ", %s, alternating", builds[1].label)
	}
	load := strings.Fields(string(loadavg))
	fmt.Fprintf(w, "; load average after: %s\n\n", strings.Join(load[:min(3, len(load))], " "))
}

// write prints the table in Markdown: each round's value of the new
// build, its median, the base build's median and the ratio where there
// is a base, and the verdict against the target.
func (t *table) write(w io.Writer, builds []*build) {
	head := "| figure | benchmark | target | new: each round | new: median |"
	sep := "| --- | --- | --- | --- | --- |"
	if len(builds) > 1 {
		head += " base: median | new / base |"
		sep += " --- | --- |"
	}
	fmt.Fprintln(w, head+" verdict |")
	fmt.Fprintln(w, sep+" --- |")
	for _, r := range t.rows {
		fmt.Fprintln(w, r.line(len(builds) > 1))
	}
}

// line is the row's Markdown line.
func (r *row) line(withBase bool) string {
	unit := r.fig.unitShown()
	vals := make([]string, len(r.vals[0]))
	for i, v := range r.vals[0] {
		vals[i] = num(v)
	}
	med := median(r.vals[0])
	cells := []string{r.fig.label, r.bench, r.target(), strings.Join(vals, ", ") + " " + unit, num(med) + " " + unit}
	if withBase {
		base := median(r.vals[1])
		cells = append(cells, num(base)+" "+unit, ratio(med, base))
	}
	cells = append(cells, r.verdict())
	return "| " + strings.Join(cells, " | ") + " |"
}

// target is the figure's target as the table shows it.
func (r *row) target() string {
	if r.fig.limit == 0 {
		return ""
	}
	op := "<"
	if r.fig.atMost {
		op = "<="
	}
	return op + " " + num(r.fig.limit) + " " + r.fig.unitShown()
}

// verdict is "met" when every round of the new build met the target,
// else in how many rounds it missed, and by how much at worst.
func (r *row) verdict() string {
	if r.fig.limit == 0 || len(r.vals[0]) == 0 {
		return ""
	}
	missed, worst := 0, r.fig.limit
	for _, v := range r.vals[0] {
		if !r.fig.meets(v) {
			missed++
			worst = max(worst, v)
		}
	}
	if missed == 0 {
		return "met"
	}
	return fmt.Sprintf("missed in %d of %d (worst %sx the target)", missed, len(r.vals[0]),
		strconv.FormatFloat(worst/r.fig.limit, 'f', 2, 64))
}

// median of vs (NaN-free; 0 for none).
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratio is a/b with two decimals, or "" when b is 0.
func ratio(a, b float64) string {
	if b == 0 {
		return ""
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "x"
}

// num formats v with three significant digits, without an exponent.
func num(v float64) string {
	if v >= 1000 || v <= -1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if strings.ContainsRune(s, 'e') {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return s
}
