package daemon

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/numa"
)

func TestRuleMatches(t *testing.T) {
	p := procInfo{pid: 7, exe: "/usr/bin/python3", cmdline: "python3 -m vllm serve model", cgroup: "/inference/a.scope"}
	tests := []struct {
		name string
		rule Rule
		want bool
	}{
		{"exe", Rule{Exe: "/usr/bin/python3"}, true},
		{"other exe", Rule{Exe: "/usr/bin/perl"}, false},
		{"cmdline", Rule{Cmdline: regexp.MustCompile(`vllm\s+serve`)}, true},
		{"cmdline miss", Rule{Cmdline: regexp.MustCompile(`sglang`)}, false},
		{"cgroup prefix", Rule{Cgroup: "/inference/"}, true},
		{"cgroup exact", Rule{Cgroup: "/inference/a.scope"}, true},
		{"cgroup other", Rule{Cgroup: "/batch/"}, false},
		{"all", Rule{Exe: "/usr/bin/python3", Cmdline: regexp.MustCompile(`vllm`), Cgroup: "/inference/"}, true},
		{"one fails", Rule{Exe: "/usr/bin/python3", Cgroup: "/batch/"}, false},
	}
	for _, tt := range tests {
		if got := tt.rule.matches(p); got != tt.want {
			t.Errorf("%s: matches = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRuleMappings(t *testing.T) {
	ms := numa.Maps{
		{Start: 0x1000, End: 0x3000, Path: "[anon:kv]"},
		{Start: 0x10000, End: 0x410000},
		{Start: 0x500000, End: 0x501000, Path: "/usr/lib/libc.so"},
	}
	if got := (&Rule{Mapping: "kv"}).mappings(ms); len(got) != 1 || got[0].Start != 0x1000 {
		t.Errorf("by name: %v", got)
	}
	if got := (&Rule{MinSize: 1 << 20}).mappings(ms); len(got) != 1 || got[0].Start != 0x10000 {
		t.Errorf("by size: %v", got)
	}
	if got := (&Rule{Mapping: "kv", MinSize: 1 << 20}).mappings(ms); len(got) != 0 {
		t.Errorf("name and size: %v", got)
	}
}

// TestRuleRegistersWorkload: a rule matching the workload's executable
// and cmdline registers its large mappings on the periodic scan.
func TestRuleRegistersWorkload(t *testing.T) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Skipf("cannot read /proc/self/exe: %v", err)
	}
	td := startDaemon(t, fmt.Sprintf(`
epoch = "100ms"
scan_interval = "100ms"
sampler "fault" {}
rule "kv" {
  exe      = %q
  cmdline  = "-test\\.run=\\^\\$"
  min_size = "8MiB"
  tenant   = "bob"
  class    = "output_critical"
  pinned_prefix = "1MiB"
}
`, exe))
	wl := startWorkload(t)
	ctx := context.Background()
	testutil.Eventually(t, 5*time.Second, "the rule to register the workload's mappings", func() bool {
		rs, err := td.client.Regions(ctx)
		if err != nil {
			return false
		}
		for _, r := range rs {
			if r.PID == wl.PID() && r.Source == "rule:kv" && r.Tenant == "bob" && r.Class == "output_critical" &&
				len(r.Pinned) == 1 && r.Pinned[0].Length == 2<<20 {
				return true
			}
		}
		return false
	})
	wl.Kill()
	testutil.Eventually(t, 5*time.Second, "the rule's regions to go with the process", func() bool {
		rs, err := td.client.Regions(ctx)
		if err != nil {
			return false
		}
		for _, r := range rs {
			if r.PID == wl.PID() {
				return false
			}
		}
		return true
	})
}
