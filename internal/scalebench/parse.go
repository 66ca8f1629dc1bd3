package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// result is one benchmark line of `go test -bench` output: its name,
// without the "Benchmark" prefix and the -GOMAXPROCS suffix, and its
// figures by unit ("ns/op", "plan-ms", ...).
type result struct {
	name    string
	figures map[string]float64
}

// parseResults reads `go test -bench` output and returns its benchmark
// lines in order. Lines that are not benchmark results (headers, PASS,
// logs) are skipped; a benchmark line whose figures do not parse is an
// error naming its line.
func parseResults(r io.Reader) ([]result, error) {
	var out []result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		res, ok, err := parseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if ok {
			out = append(out, res)
		}
	}
	return out, sc.Err()
}

// parseLine parses one benchmark result line:
//
//	BenchmarkName/sub-2   10   72575083 ns/op   21.86 plan-ms
//
// ok is false for a line that is not one.
func parseLine(s string) (result, bool, error) {
	f := strings.Fields(s)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return result{}, false, nil
	}
	if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
		return result{}, false, nil // a log line that starts with a benchmark's name
	}
	res := result{name: trimProcs(strings.TrimPrefix(f[0], "Benchmark")), figures: map[string]float64{}}
	for i := 2; i < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return result{}, false, fmt.Errorf("%s: figure %q of unit %q: %w", f[0], f[i], f[i+1], err)
		}
		res.figures[f[i+1]] = v
	}
	return res, true, nil
}

// trimProcs drops the -GOMAXPROCS suffix go test appends to a
// benchmark's name ("ScaleHints/blocks=1M-2" -> "ScaleHints/blocks=1M").
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}
