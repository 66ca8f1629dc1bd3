package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBuild is a build whose test binary for package p is a shell script
// that logs its label and KVTIER_BENCH_10M to log and prints one
// benchmark line with plan-ms v.
func fakeBuild(t *testing.T, label, log, v string) *build {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "p.test")
	script := "#!/bin/sh\necho \"" + label + " ${KVTIER_BENCH_10M:-unset}\" >> " + log + "\n" +
		"echo 'BenchmarkScaleEpoch/blocks=10M-2 10 5 ns/op " + v + " plan-ms'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &build{label: label, root: root, bins: map[string]string{"p": bin}}
}

// runRound runs the builds alternately (new first in odd rounds, base
// first in even ones), with KVTIER_BENCH_10M unless -small, keeps each
// run's output and records each build's figures as its own.
func TestRunRoundAlternates(t *testing.T) {
	for _, small := range []bool{false, true} {
		dir := t.TempDir()
		log := filepath.Join(dir, "order")
		builds := []*build{fakeBuild(t, "new", log, "12.5"), fakeBuild(t, "base", log, "20")}
		s := suite{name: "plan", pkg: "p", figures: []figure{{label: "plan", bench: re(`^ScaleEpoch/blocks=10M$`),
			unit: "plan-ms", limit: 20, big: true}}}
		tb := newTable(2)
		o := options{rounds: 2, small: small}
		for round := range o.rounds {
			if err := runRound(o, []suite{s}, builds, round, dir, tb); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		env := map[bool]string{false: "1", true: "unset"}[small]
		want := strings.Join([]string{"new", "base", "base", "new"}, " "+env+"\n") + " " + env + "\n"
		if string(got) != want {
			t.Errorf("small=%v: runs\n%s\nwant\n%s", small, got, want)
		}
		if len(tb.rows) != 1 || tb.rows[0].line(true) !=
			"| plan | ScaleEpoch/blocks=10M | < 20 plan-ms | 12.5, 12.5 plan-ms | 12.5 plan-ms | 20 plan-ms | 0.62x | met |" {
			t.Errorf("table rows %d: %q", len(tb.rows), tb.rows[0].line(true))
		}
		if _, err := os.Stat(filepath.Join(dir, "base-plan-round2.txt")); err != nil {
			t.Errorf("raw output not kept: %v", err)
		}
	}
}
