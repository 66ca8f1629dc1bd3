package main

import (
	"bytes"
	"strings"
	"testing"
)

// ev builds one go test -json line.
func ev(action, pkg, test, output string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `{"Action":"` + action + `","Package":"` + pkg + `","Test":"` + test + `","Output":"` + r.Replace(output) + `"}`
}

func TestSummary(t *testing.T) {
	const pkg = "github.com/kvtier/kvtier/bpf"
	tests := []struct {
		name   string
		lines  []string
		want   []string // in this order
		absent []string
		failed bool
	}{
		{"pass and skip", []string{
			ev("run", pkg, "TestA", ""), ev("output", pkg, "TestA", "=== RUN   TestA\n"),
			ev("output", pkg, "TestA", "--- PASS: TestA (0.00s)\n"), ev("pass", pkg, "TestA", ""),
			ev("output", pkg, "TestDamon", "=== RUN   TestDamon\n"),
			ev("output", pkg, "TestDamon", "    damon_test.go:12: DAMON vaddr is not available here\n"),
			ev("output", pkg, "TestDamon", "--- SKIP: TestDamon (0.00s)\n"), ev("skip", pkg, "TestDamon", ""),
			ev("output", pkg, "", "PASS\n"), ev("output", pkg, "", "ok  \t"+pkg+"\t0.1s\n"), ev("pass", pkg, "", ""),
		}, []string{"ok  \t" + pkg, "skipped tests (1):", "SKIP bpf TestDamon: DAMON vaddr is not available here"},
			[]string{"=== RUN", "--- PASS", "PASS\n"}, false},
		{"a failed subtest", []string{
			ev("output", pkg, "TestB", "=== RUN   TestB\n"), ev("output", pkg, "TestB/x", "=== RUN   TestB/x\n"),
			ev("output", pkg, "TestB/x", "    b_test.go:3: wrong\n"), ev("output", pkg, "TestB/x", "    --- FAIL: TestB/x (0.00s)\n"),
			ev("fail", pkg, "TestB/x", ""), ev("output", pkg, "TestB", "--- FAIL: TestB (0.00s)\n"), ev("fail", pkg, "TestB", ""),
			ev("output", pkg, "", "FAIL\n"), ev("output", pkg, "", "FAIL\t"+pkg+"\t0.1s\n"), ev("fail", pkg, "", ""),
		}, []string{"--- FAIL: TestB (0.00s)", "b_test.go:3: wrong", "FAIL\t" + pkg, "skipped tests: none"}, []string{"=== RUN"}, true},
		{"a build failure", []string{
			`{"ImportPath":"x","Action":"build-output","Output":"x/a.go:1: syntax error\n"}`, `{"ImportPath":"x","Action":"build-fail"}`,
			ev("output", "x", "", "FAIL\tx [build failed]\n"), ev("fail", "x", "", ""),
		}, []string{"x/a.go:1: syntax error", "FAIL\tx [build failed]"}, nil, true},
		{"a skip without a reason, and a stray line", []string{
			"go: downloading something", ev("output", pkg, "TestC", "--- SKIP: TestC (0.00s)\n"), ev("skip", pkg, "TestC", ""),
		}, []string{"go: downloading something", "SKIP bpf TestC: (no reason given)"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s := newSummary(&out)
			if err := s.read(strings.NewReader(strings.Join(tt.lines, "\n"))); err != nil {
				t.Fatal(err)
			}
			s.writeSkips()
			got, at := out.String(), 0
			for _, w := range tt.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Errorf("output lacks %q after offset %d:\n%s", w, at, got)
					continue
				}
				at += i
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("output has %q:\n%s", a, got)
				}
			}
			if s.failed != tt.failed {
				t.Errorf("failed = %v, want %v", s.failed, tt.failed)
			}
		})
	}
}
