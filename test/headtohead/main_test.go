package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/test/headtohead/report"
)

func TestMerge(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old")
	prev := &report.Results{Commit: "aaa", Runs: []report.Run{{Config: "first-touch", Wall: 1}, {Config: "tpp", Wall: 1}, {Config: "damos", Wall: 1}}}
	if err := report.WriteAll(old, prev); err != nil {
		t.Fatal(err)
	}
	fresh := &report.Results{Commit: "bbb", Runs: []report.Run{{Config: "tpp", Wall: 2}, {Config: "damos-hmsdk", Wall: 2}}}
	got, err := merge(filepath.Join(old, report.JSONFile), fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, r := range got.Runs {
		s = append(s, r.Config)
		if want := map[string]float64{"tpp": 2, "damos-hmsdk": 2}[r.Config]; want != 0 && r.Wall != want {
			t.Errorf("%s: wall %v, want the new run's", r.Config, r.Wall)
		}
	}
	if strings.Join(s, ",") != "first-touch,tpp,damos,damos-hmsdk" {
		t.Errorf("runs %v", s)
	}
	if !strings.Contains(got.Commit, "bbb") || !strings.Contains(got.Commit, "aaa") || len(got.Targets) == 0 {
		t.Errorf("commit %q, %d targets", got.Commit, len(got.Targets))
	}
	if _, err := merge(filepath.Join(old, "missing.json"), fresh, nil); err == nil {
		t.Error("a missing results file gave no error")
	}
}
