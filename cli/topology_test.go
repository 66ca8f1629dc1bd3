package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func fixtureArgs(tree string) []string {
	base := filepath.Join("..", "numa", "testdata", "trees", tree)
	return []string{"--sysfs-root", filepath.Join(base, "sys"), "--procfs-root", filepath.Join(base, "proc")}
}

func TestTopologyCommand(t *testing.T) {
	tests := []struct {
		tree string
		want []string
	}{
		{"cxl-2node", []string{"1     -     1 GiB", "slow   no CPUs", "numa_balancing=1 (normal)", "warning: NUMA balancing is on"}},
		{"tiers-disagree", []string{"tier 54 is below the fastest tier 4", "2     2-3   0 B", "none", "3 (normal+memory tiering)"}},
		{"one-node", []string{"nothing in the kernel fights"}},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"topology"}, fixtureArgs(tt.tree)...), &out, &errb)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tt.tree, code, errb.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.tree, w, out.String())
			}
		}
	}
}

func TestTopologyCommandJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(append([]string{"topology", "--json"}, fixtureArgs("two-socket-cxl")...), &out, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Nodes []struct {
			ID     int    `json:"id"`
			Class  string `json:"class"`
			Tier   int    `json:"tier"`
			Reason string `json:"reason"`
		} `json:"nodes"`
		Kernel struct {
			NUMABalancing int `json:"numa_balancing"`
		} `json:"kernel"`
		Conflicts []string `json:"kernel_conflicts"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	classes := ""
	for _, n := range got.Nodes {
		classes += n.Class + " "
	}
	if classes != "fast fast slow slow " || got.Kernel.NUMABalancing != 2 || len(got.Conflicts) != 2 {
		t.Errorf("decoded %+v", got)
	}
}

func TestTopologyCommandErrors(t *testing.T) {
	var out, errb bytes.Buffer
	broken := filepath.Join("..", "numa", "testdata", "trees", "broken", "cpulist", "sys")
	if code := run([]string{"topology", "--sysfs-root", broken}, &out, &errb); code != ExitError ||
		!strings.Contains(errb.String(), "node1/cpulist") {
		t.Errorf("broken tree: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"topology", "--sysfs-root", t.TempDir()}, &out, &errb); code != ExitUnsupported {
		t.Errorf("no NUMA sysfs: exit %d, %q", code, errb.String())
	}
}
