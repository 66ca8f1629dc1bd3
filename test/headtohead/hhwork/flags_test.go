package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kvtier/kvtier/test/headtohead/bench"
)

// TestRunnerFlags checks that the runner's phase flags are the workload's.
func TestRunnerFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		ph   bench.Phases
	}{{"full", bench.Full()}, {"short", bench.Short()}} {
		c, err := parseFlags(strings.Fields(tc.ph.Flags()))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.t1 != tc.ph.T1 || c.t2 != tc.ph.T2 || c.t3 != tc.ph.T3 || c.cycles != tc.ph.Cycles || c.gap != tc.ph.Gap ||
			c.replayTime != tc.ph.ReplayTime || c.rate != tc.ph.ReplayRate || c.seed != tc.ph.Seed {
			t.Errorf("%s: parsed %+v from %q", tc.name, c, tc.ph.Flags())
		}
	}
	if _, err := parseFlags([]string{"-hints"}); err == nil {
		t.Error("-hints without -daemon was accepted")
	}
	if c, _ := parseFlags(nil); c.t1 != 60*time.Second || c.arenaMiB != 512 || !c.noHuge {
		t.Errorf("defaults: %+v", c)
	}
}
