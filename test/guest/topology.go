package guest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kvtier/kvtier/internal/jsonpos"
)

// ErrTopology is wrapped by every error about a topology file.
var ErrTopology = errors.New("invalid topology")

// Topology is one emulated machine: NUMA nodes with their CPUs and memory,
// the SLIT distances and optional HMAT latency and bandwidth figures. It is
// read from a JSON file under test/topologies.
type Topology struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	CPUs        int        `json:"cpus"`
	Nodes       []TopoNode `json:"nodes"`
	Distances   []Distance `json:"distances"`
	// HMAT turns on -machine pc,hmat=on; every node then needs an initiator.
	HMAT   bool     `json:"hmat"`
	HMATLB []HMATLB `json:"hmat_lb"`
	// Expect says what the kernel and kvtier should make of the machine.
	Expect Expect `json:"expect"`
}

// TopoNode is one NUMA node.
type TopoNode struct {
	ID        int    `json:"id"`
	CPUs      string `json:"cpus,omitempty"` // QEMU cpu list such as "0-1"; empty is CPU-less
	MemoryMiB int    `json:"memory_mib"`
	Initiator *int   `json:"initiator,omitempty"`
}

// Distance is one SLIT entry (the reverse direction is implied by QEMU).
type Distance struct {
	Src int `json:"src"`
	Dst int `json:"dst"`
	Val int `json:"val"`
}

// HMATLB is one -numa hmat-lb figure: an access latency in nanoseconds or
// an access bandwidth such as "200G" (bytes per second, QEMU's suffixes).
type HMATLB struct {
	Initiator int    `json:"initiator"`
	Target    int    `json:"target"`
	LatencyNS int    `json:"latency_ns,omitempty"`
	Bandwidth string `json:"bandwidth,omitempty"`
}

// Expect is what a scenario asserts about the topology.
type Expect struct {
	// SlowNodes must be classified slow by kvtier.
	SlowNodes []int `json:"slow_nodes"`
	// KernelLowerTier lists nodes the kernel must put in a lower memory tier
	// than node 0 (only kernels with HMAT-driven tiers, see MinTierKernel).
	KernelLowerTier []int `json:"kernel_lower_tier"`
	// MinTierKernel is the oldest kernel series ("6.12") that honours the
	// HMAT figures when building memory tiers.
	MinTierKernel string `json:"min_tier_kernel,omitempty"`
}

// LoadTopology reads and validates a topology file.
func LoadTopology(file string) (*Topology, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading topology: %w", err)
	}
	t, err := ParseTopology(b)
	var pe *posError
	switch {
	case errors.As(err, &pe):
		return nil, fmt.Errorf("%s:%w", file, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return t, nil
}

// ParseTopology decodes and validates a topology. Errors start with
// "line:col: " where the JSON is malformed, or name the bad field.
func ParseTopology(b []byte) (*Topology, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var t Topology
	if err := dec.Decode(&t); err != nil {
		line, col := jsonpos.LineCol(b, jsonpos.Offset(err, dec.InputOffset()))
		return nil, &posError{line, col, err.Error()}
	}
	if line, col, ok := jsonpos.Trailing(dec, b); ok {
		return nil, &posError{line, col, "trailing data after the topology"}
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// posError is a JSON error at a line and column of the file.
type posError struct {
	line, col int
	msg       string
}

func (e *posError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }
func (e *posError) Unwrap() error { return ErrTopology }

// badTopology is an ErrTopology with the message format makes of a.
func badTopology(format string, a ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, a...), ErrTopology)
}

// validate checks what QEMU would reject or misread, before a guest boots
// for it: the machine's size, its nodes, distances and HMAT entries, and
// that the expectations name nodes the topology has.
func (t *Topology) validate() error {
	if t.Name == "" {
		return badTopology("name is empty")
	}
	if t.CPUs < 1 || t.CPUs > 64 {
		return badTopology("cpus is %d, want 1-64", t.CPUs)
	}
	if len(t.Nodes) == 0 || len(t.Nodes) > 16 {
		return badTopology("%d nodes, want 1-16", len(t.Nodes))
	}
	ids, err := t.validateNodes()
	if err != nil {
		return err
	}
	for i, d := range t.Distances {
		if !ids[d.Src] || !ids[d.Dst] || d.Src == d.Dst || d.Val < 11 || d.Val > 254 {
			return badTopology("distances[%d] {src %d, dst %d, val %d}: want two different nodes and val 11-254", i, d.Src, d.Dst, d.Val)
		}
	}
	if err := t.validateHMATLB(ids); err != nil {
		return err
	}
	for _, id := range append(append([]int{}, t.Expect.SlowNodes...), t.Expect.KernelLowerTier...) {
		if !ids[id] {
			return badTopology("expect names node %d, which the topology lacks", id)
		}
	}
	return nil
}

// validateNodes checks each node in order and returns the set of node IDs
// the distances, HMAT entries and expectations may name.
func (t *Topology) validateNodes() (map[int]bool, error) {
	ids := map[int]bool{}
	for i, n := range t.Nodes {
		switch {
		case n.ID != i:
			return nil, badTopology("nodes[%d].id is %d, want %d (nodes in order from 0)", i, n.ID, i)
		case n.MemoryMiB < 64 || n.MemoryMiB > 1<<20:
			return nil, badTopology("nodes[%d].memory_mib is %d, want 64-1048576", i, n.MemoryMiB)
		case t.HMAT && n.Initiator == nil:
			return nil, badTopology("nodes[%d].initiator is missing; hmat needs one on every node", i)
		case n.Initiator != nil && (*n.Initiator < 0 || *n.Initiator >= len(t.Nodes)):
			return nil, badTopology("nodes[%d].initiator is %d, not a node", i, *n.Initiator)
		case strings.ContainsAny(n.CPUs, ", ="):
			return nil, badTopology("nodes[%d].cpus %q: want one range such as 0-1", i, n.CPUs)
		}
		if n.CPUs != "" {
			if err := checkCPUs(n.CPUs, t.CPUs); err != nil {
				return nil, badTopology("nodes[%d].cpus: %v", i, err)
			}
		}
		ids[n.ID] = true
	}
	return ids, nil
}

// validateHMATLB checks the HMAT latency and bandwidth entries: only with
// hmat on, between nodes in ids, each giving exactly one figure.
func (t *Topology) validateHMATLB(ids map[int]bool) error {
	if len(t.HMATLB) > 0 && !t.HMAT {
		return badTopology("hmat_lb given but hmat is false")
	}
	for i, h := range t.HMATLB {
		switch {
		case !ids[h.Initiator] || !ids[h.Target]:
			return badTopology("hmat_lb[%d]: initiator %d or target %d is not a node", i, h.Initiator, h.Target)
		case (h.LatencyNS > 0) == (h.Bandwidth != ""):
			return badTopology("hmat_lb[%d]: want exactly one of latency_ns and bandwidth", i)
		case h.LatencyNS < 0:
			return badTopology("hmat_lb[%d].latency_ns is negative", i)
		case h.Bandwidth != "" && !validSize(h.Bandwidth):
			return badTopology("hmat_lb[%d].bandwidth %q: want a number with an optional K, M, G or T suffix", i, h.Bandwidth)
		}
	}
	return nil
}

func checkCPUs(s string, n int) error {
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		hi = lo
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || a < 0 || b < a || b >= n {
		return fmt.Errorf("%q is not a range within 0-%d", s, n-1)
	}
	return nil
}

func validSize(s string) bool {
	num := strings.TrimRight(s, "KMGT")
	if len(s)-len(num) > 1 {
		return false
	}
	v, err := strconv.ParseUint(num, 10, 32)
	return err == nil && v > 0
}

// MemoryMiB is the guest's total memory.
func (t *Topology) MemoryMiB() int {
	total := 0
	for _, n := range t.Nodes {
		total += n.MemoryMiB
	}
	return total
}

// QEMUArgs returns the machine, memory and NUMA arguments of the topology.
func (t *Topology) QEMUArgs() []string {
	machine := "pc"
	if t.HMAT {
		machine += ",hmat=on"
	}
	args := []string{"-machine", machine,
		"-m", fmt.Sprintf("%dM", t.MemoryMiB()), "-smp", strconv.Itoa(t.CPUs)}
	for _, n := range t.Nodes {
		args = append(args, "-object", fmt.Sprintf("memory-backend-ram,id=m%d,size=%dM", n.ID, n.MemoryMiB))
		spec := fmt.Sprintf("node,nodeid=%d,memdev=m%d", n.ID, n.ID)
		if n.CPUs != "" {
			spec += ",cpus=" + n.CPUs
		}
		if n.Initiator != nil {
			spec += fmt.Sprintf(",initiator=%d", *n.Initiator)
		}
		args = append(args, "-numa", spec)
	}
	for _, d := range t.Distances {
		args = append(args, "-numa", fmt.Sprintf("dist,src=%d,dst=%d,val=%d", d.Src, d.Dst, d.Val))
	}
	for _, h := range t.HMATLB {
		spec := fmt.Sprintf("hmat-lb,initiator=%d,target=%d,hierarchy=memory,", h.Initiator, h.Target)
		if h.LatencyNS > 0 {
			spec += fmt.Sprintf("data-type=access-latency,latency=%d", h.LatencyNS)
		} else {
			spec += "data-type=access-bandwidth,bandwidth=" + h.Bandwidth
		}
		args = append(args, "-numa", spec)
	}
	return args
}
