package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// read consumes the JSON events and prints each package's part as the
// package ends. A line that is not JSON (go test printed it itself) is
// copied through.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(s.w, string(line))
			continue
		}
		s.handle(e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading go test -json: %w", err)
	}
	return nil
}

// handle records one event.
func (s *summary) handle(e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(s.w, e.Output)
		return
	case "build-fail":
		s.failed = true
		return
	}
	p := s.pkg(e.Package)
	switch {
	case e.Action == "output":
		if _, ok := p.output[e.Test]; !ok && e.Test != "" {
			p.order = append(p.order, e.Test)
		}
		p.output[e.Test] = append(p.output[e.Test], e.Output)
	case e.Action == "fail":
		s.failed = true
		if e.Test != "" {
			p.fails[e.Test] = true
		}
	case e.Action == "skip" && e.Test != "":
		s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, reason: skipReason(p.output[e.Test])})
	}
	if e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
		s.endPackage(e.Package, p)
	}
}

func (s *summary) pkg(name string) *pkgState {
	p := s.pkgs[name]
	if p == nil {
		p = &pkgState{output: map[string][]string{}, fails: map[string]bool{}}
		s.pkgs[name] = p
	}
	return p
}

// endPackage prints the output of the package's failed tests, then its
// own lines ("ok  pkg 1.2s", "FAIL pkg", panics), as plain go test does.
func (s *summary) endPackage(name string, p *pkgState) {
	for _, t := range p.order {
		if !p.fails[t] {
			continue
		}
		for _, l := range p.output[t] {
			if !isFrame(l) {
				fmt.Fprint(s.w, l)
			}
		}
	}
	for _, l := range p.output[""] {
		if !isFrame(l) && strings.TrimSpace(l) != "PASS" {
			fmt.Fprint(s.w, l)
		}
	}
	delete(s.pkgs, name)
}

// isFrame is a line of verbose output that plain go test does not print.
func isFrame(l string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- SKIP"} {
		if strings.HasPrefix(strings.TrimSpace(l), p) {
			return true
		}
	}
	return false
}

// skipReason is what a skipped test logged (t.Skip's message and any
// t.Log before it), on one line.
func skipReason(lines []string) string {
	var parts []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || isFrame(l) {
			continue
		}
		// "file_test.go:12: reason": the reason without the location.
		if i := strings.Index(l, ": "); i > 0 && strings.Contains(l[:i], ".go:") {
			l = l[i+2:]
		}
		parts = append(parts, l)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, "; ")
}

// writeSkips prints every skipped test, by package and name.
func (s *summary) writeSkips() {
	if len(s.skips) == 0 {
		fmt.Fprintln(s.w, "\nskipped tests: none")
		return
	}
	slices.SortFunc(s.skips, func(a, b skip) int {
		return strings.Compare(a.pkg+" "+a.test, b.pkg+" "+b.test)
	})
	fmt.Fprintf(s.w, "\nskipped tests (%d):\n", len(s.skips))
	for _, k := range s.skips {
		fmt.Fprintf(s.w, "  SKIP %s %s: %s\n", strings.TrimPrefix(k.pkg, "github.com/kvtier/kvtier/"), k.test, k.reason)
	}
}
