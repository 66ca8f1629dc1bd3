package numa

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func treeRoot(name string) string { return filepath.Join("testdata", "trees", name, "sys") }

func TestReadTopologyFixtures(t *testing.T) {
	type want struct {
		cpus     []int
		memGiB   uint64
		tier     int
		class    Class
		reason   string // substring
		distance []int
	}
	tests := []struct {
		tree  string
		tiers int
		nodes map[int]want
	}{
		{"one-node", 1, map[int]want{
			0: {[]int{0, 1}, 24, 4, ClassFast, "has CPUs", []int{10}},
		}},
		{"cxl-2node", 1, map[int]want{
			0: {[]int{0, 1}, 1, 4, ClassFast, "share kernel memory tier 4", []int{10, 20}},
			1: {nil, 1, 4, ClassSlow, "no CPUs", []int{20, 10}},
		}},
		{"two-socket-cxl", 2, map[int]want{
			0: {[]int{0, 1, 2, 3}, 64, 4, ClassFast, "tier 4 is the fastest", []int{10, 21, 14, 24}},
			1: {[]int{4, 5, 6, 7}, 64, 4, ClassFast, "tier 4 is the fastest", []int{21, 10, 24, 14}},
			2: {nil, 128, 22, ClassSlow, "tier 22 is below", []int{14, 24, 10, 26}},
			3: {nil, 128, 22, ClassSlow, "tier 22 is below", []int{24, 14, 26, 10}},
		}},
		{"tiers-disagree", 2, map[int]want{
			0: {[]int{0, 1}, 16, 54, ClassSlow, "tier 54 is below", []int{10, 12, 20}},
			1: {nil, 8, 4, ClassFast, "tier 4 is the fastest", []int{12, 10, 20}},
			2: {[]int{2, 3}, 0, NoTier, ClassNone, "no memory", []int{20, 20, 10}},
		}},
		{"old-kernel", 0, map[int]want{
			0: {[]int{0, 1, 2, 3}, 8, NoTier, ClassFast, "in no kernel memory tier", []int{10, 20}},
			1: {nil, 8, NoTier, ClassSlow, "no CPUs", []int{20, 10}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			topo, err := ReadTopology(treeRoot(tt.tree))
			if err != nil {
				t.Fatal(err)
			}
			if len(topo.Nodes) != len(tt.nodes) || len(topo.Tiers) != tt.tiers {
				t.Fatalf("%d nodes, %d tiers; want %d, %d", len(topo.Nodes), len(topo.Tiers), len(tt.nodes), tt.tiers)
			}
			for id, w := range tt.nodes {
				n, err := topo.Node(id)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(n.CPUs, w.cpus) || n.MemTotal != w.memGiB<<30 || n.Tier != w.tier ||
					n.Class != w.class || !reflect.DeepEqual(n.Distances, w.distance) {
					t.Errorf("node %d: %+v, want %+v", id, *n, w)
				}
				if !strings.Contains(n.Reason, w.reason) {
					t.Errorf("node %d reason %q, want it to say %q", id, n.Reason, w.reason)
				}
				if n.HasMemory() && n.MemFree == 0 {
					t.Errorf("node %d: MemFree not read", id)
				}
			}
		})
	}
}

func TestClassifyOverride(t *testing.T) {
	topo, err := ReadTopology(treeRoot("cxl-2node"))
	if err != nil {
		t.Fatal(err)
	}
	if err := topo.Classify(map[int]Class{1: ClassFast}); err != nil {
		t.Fatal(err)
	}
	if got := topo.WithClass(ClassFast); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("fast nodes %v, want [0 1]", got)
	}
	if n, _ := topo.Node(1); n.Reason != reasonOverride {
		t.Errorf("reason %q, want %q", n.Reason, reasonOverride)
	}
	if err := topo.Classify(map[int]Class{5: ClassSlow}); !errors.Is(err, ErrNoNode) {
		t.Errorf("override of node 5: %v, want ErrNoNode", err)
	}
	if err := topo.Classify(map[int]Class{0: ClassNone}); err == nil {
		t.Error("override to class none accepted")
	}
	if d, err := topo.Distance(0, 1); err != nil || d != 20 {
		t.Errorf("Distance(0,1) = %d, %v; want 20", d, err)
	}
	if _, err := topo.Distance(0, 9); !errors.Is(err, ErrNoNode) {
		t.Errorf("Distance(0,9): %v, want ErrNoNode", err)
	}
}

func TestReadTopologyBroken(t *testing.T) {
	tests := []struct{ tree, file string }{
		{"cpulist", "node1/cpulist"},
		{"meminfo", "node0/meminfo:1"},
		{"meminfo-missing", "node1/meminfo"},
		{"distance", "node1/distance"},
		{"distance-value", "node0/distance"},
		{"online", "node/online"},
		{"tier", "memory_tier4/nodelist"},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			_, err := ReadTopology(filepath.Join("testdata", "trees", "broken", tt.tree, "sys"))
			if !errors.Is(err, ErrParse) {
				t.Fatalf("error %v, want ErrParse", err)
			}
			if !strings.Contains(err.Error(), tt.file) {
				t.Fatalf("error %q does not name %s", err, tt.file)
			}
		})
	}
	if _, err := ReadTopology(t.TempDir()); !errors.Is(err, ErrNotSupported) {
		t.Errorf("empty root: %v, want ErrNotSupported", err)
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		bad  bool
	}{
		{"", nil, false},
		{"0", []int{0}, false},
		{"0-3,8,10-11\n", []int{0, 1, 2, 3, 8, 10, 11}, false},
		{"3-1", nil, true},
		{"1,0", nil, true},
		{"0,,1", nil, true},
		{"-1", nil, true},
		{"70000", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseList(tt.in)
		if (err != nil) != tt.bad || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseList(%q) = %v, %v", tt.in, got, err)
		}
		if !tt.bad && FormatList(got) != strings.TrimSpace(tt.in) {
			t.Errorf("FormatList(%v) = %q", got, FormatList(got))
		}
	}
}

// TestNodeFree reads a node's free memory from the fixture tree, and says
// which node it could not read.
func TestNodeFree(t *testing.T) {
	topo := fixtureTopology(t, "cxl-2node")
	for _, n := range topo.Nodes {
		free, err := topo.NodeFree(n.ID)
		if err != nil || free != n.MemFree {
			t.Errorf("NodeFree(%d) = %d, %v; want %d as ReadTopology read it", n.ID, free, err, n.MemFree)
		}
	}
	if _, err := topo.NodeFree(7); err == nil || !strings.Contains(err.Error(), "node 7") {
		t.Errorf("NodeFree(7) = %v, want an error naming node 7", err)
	}
}
