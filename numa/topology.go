package numa

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// DefaultSysRoot is where sysfs is mounted.
const DefaultSysRoot = "/sys"

// NoTier is the Tier of a node the kernel lists in no memory tier.
const NoTier = -1

// Node is one online NUMA node.
type Node struct {
	ID        int    `json:"id"`
	CPUs      []int  `json:"cpus"`
	MemTotal  uint64 `json:"mem_total_bytes"`
	MemFree   uint64 `json:"mem_free_bytes"`
	Distances []int  `json:"distances"` // to each node of Topology.Nodes, in order
	Tier      int    `json:"tier"`      // kernel memory tier ID, or NoTier
	Class     Class  `json:"class"`
	Reason    string `json:"reason"` // why the node got its Class
}

// HasMemory reports whether the node has memory to place pages on.
func (n *Node) HasMemory() bool { return n.MemTotal > 0 }

// MemoryTier is one kernel memory tier
// (/sys/devices/virtual/memory_tiering/memory_tierN). A lower ID is faster.
type MemoryTier struct {
	ID    int   `json:"id"`
	Nodes []int `json:"nodes"`
}

// Topology is the NUMA layout of the machine as sysfs describes it.
type Topology struct {
	Root  string       `json:"sysfs_root"`
	Nodes []Node       `json:"nodes"` // online nodes, sorted by ID
	Tiers []MemoryTier `json:"memory_tiers"`
}

// ReadTopology reads the online nodes under root (a sysfs mount such as
// "/sys", or a fixture tree laid out like one) and classifies them with no
// overrides. Errors name the file that could not be read or parsed.
func ReadTopology(root string) (*Topology, error) {
	if root == "" {
		root = DefaultSysRoot
	}
	nodeDir := filepath.Join(root, "devices", "system", "node")
	online, err := readListFile(filepath.Join(nodeDir, "online"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading NUMA topology: %w: %v", ErrNotSupported, err)
		}
		return nil, err
	}
	if len(online) == 0 {
		return nil, fmt.Errorf("%s: no online nodes: %w", filepath.Join(nodeDir, "online"), ErrParse)
	}
	t := &Topology{Root: root}
	for _, id := range online {
		n, err := readNode(filepath.Join(nodeDir, "node"+strconv.Itoa(id)), id, len(online))
		if err != nil {
			return nil, err
		}
		t.Nodes = append(t.Nodes, n)
	}
	if t.Tiers, err = readTiers(filepath.Join(root, "devices", "virtual", "memory_tiering")); err != nil {
		return nil, err
	}
	for _, tier := range t.Tiers {
		for _, id := range tier.Nodes {
			if n := t.node(id); n != nil {
				n.Tier = tier.ID
			}
		}
	}
	if err := t.Classify(nil); err != nil {
		return nil, err
	}
	return t, nil
}

func readNode(dir string, id, nOnline int) (Node, error) {
	n := Node{ID: id, Tier: NoTier}
	var err error
	if n.CPUs, err = readListFile(filepath.Join(dir, "cpulist")); err != nil {
		return n, err
	}
	if n.MemTotal, n.MemFree, err = readNodeMeminfo(filepath.Join(dir, "meminfo")); err != nil {
		return n, err
	}
	if n.Distances, err = readDistances(filepath.Join(dir, "distance"), nOnline); err != nil {
		return n, err
	}
	return n, nil
}

func readListFile(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ids, err := ParseList(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", path, err, ErrParse)
	}
	return ids, nil
}

// readNodeMeminfo reads MemTotal and MemFree from a node meminfo file, whose
// lines look like "Node 0 MemTotal:       4153924 kB".
func readNodeMeminfo(path string) (total, free uint64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var haveTotal, haveFree bool
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] != "Node" {
			continue
		}
		var dst *uint64
		switch f[2] {
		case "MemTotal:":
			dst, haveTotal = &total, true
		case "MemFree:":
			dst, haveFree = &free, true
		default:
			continue
		}
		v, err := parseKB(f[3:])
		if err != nil {
			return 0, 0, fmt.Errorf("%s:%d: %s %v: %w", path, line, f[2], err, ErrParse)
		}
		*dst = v
	}
	if !haveTotal || !haveFree {
		return 0, 0, fmt.Errorf("%s: MemTotal or MemFree missing: %w", path, ErrParse)
	}
	return total, free, nil
}

// parseKB parses ["123", "kB"] into bytes.
func parseKB(f []string) (uint64, error) {
	v, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", f[0])
	}
	if len(f) > 1 && f[1] != "kB" {
		return 0, fmt.Errorf("unit %q is not kB", f[1])
	}
	if v > 1<<53 {
		return 0, fmt.Errorf("%d kB is out of range", v)
	}
	return v * 1024, nil
}

func readDistances(path string, want int) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(b))
	if len(f) != want {
		return nil, fmt.Errorf("%s: %d distances for %d online nodes: %w", path, len(f), want, ErrParse)
	}
	d := make([]int, len(f))
	for i, s := range f {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 || v > 255 {
			return nil, fmt.Errorf("%s: distance %d is %q, want 1-255: %w", path, i+1, s, ErrParse)
		}
		d[i] = v
	}
	return d, nil
}

// readTiers reads memory_tier*/nodelist. A missing directory (older kernels)
// yields no tiers.
func readTiers(dir string) ([]MemoryTier, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var tiers []MemoryTier
	for _, e := range ents {
		num, ok := strings.CutPrefix(e.Name(), "memory_tier")
		if !ok {
			continue
		}
		id, err := strconv.Atoi(num)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%s: tier number %q: %w", filepath.Join(dir, e.Name()), num, ErrParse)
		}
		nodes, err := readListFile(filepath.Join(dir, e.Name(), "nodelist"))
		if err != nil {
			return nil, err
		}
		tiers = append(tiers, MemoryTier{ID: id, Nodes: nodes})
	}
	sort.Slice(tiers, func(i, j int) bool { return tiers[i].ID < tiers[j].ID })
	return tiers, nil
}

func (t *Topology) node(id int) *Node {
	for i := range t.Nodes {
		if t.Nodes[i].ID == id {
			return &t.Nodes[i]
		}
	}
	return nil
}

// Node returns the online node id, or an error wrapping ErrNoNode.
func (t *Topology) Node(id int) (*Node, error) {
	if n := t.node(id); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("node %d (online: %s): %w", id, FormatList(t.IDs()), ErrNoNode)
}

// IDs returns the online node IDs in ascending order.
func (t *Topology) IDs() []int {
	ids := make([]int, len(t.Nodes))
	for i, n := range t.Nodes {
		ids[i] = n.ID
	}
	return ids
}

// Distance returns the SLIT distance from node a to node b (10 is local).
func (t *Topology) Distance(a, b int) (int, error) {
	na, err := t.Node(a)
	if err != nil {
		return 0, err
	}
	for i := range t.Nodes {
		if t.Nodes[i].ID == b {
			return na.Distances[i], nil
		}
	}
	_, err = t.Node(b)
	return 0, err
}

// ClassOf returns the class of node id, or ClassNone with ErrNoNode.
func (t *Topology) ClassOf(id int) (Class, error) {
	n, err := t.Node(id)
	if err != nil {
		return ClassNone, err
	}
	return n.Class, nil
}

// WithClass returns the IDs of the nodes of class c.
func (t *Topology) WithClass(c Class) []int {
	var ids []int
	for _, n := range t.Nodes {
		if n.Class == c {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

// NodeFree reads node id's free memory now (MemFree of its meminfo under
// the topology's sysfs root), for callers that watch a node fill up or
// drain: the Node's MemFree is as read by ReadTopology.
func (t *Topology) NodeFree(id int) (uint64, error) {
	root := t.Root
	if root == "" {
		root = DefaultSysRoot
	}
	path := filepath.Join(root, "devices", "system", "node", "node"+strconv.Itoa(id), "meminfo")
	_, free, err := readNodeMeminfo(path)
	if err != nil {
		return 0, fmt.Errorf("reading the free memory of node %d: %w", id, err)
	}
	return free, nil
}
