package numa

import (
	"fmt"
	"sort"
)

// Class is a node's memory class.
type Class uint8

// Node classes.
const (
	ClassNone Class = iota // no memory: nothing can be placed there
	ClassFast              // DRAM local to a socket
	ClassSlow              // CXL or other far memory
)

var classNames = [...]string{"none", "fast", "slow"}

// String returns "none", "fast" or "slow".
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// MarshalText encodes the class by name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText decodes a class name.
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ParseClass parses "fast" or "slow" (and "none").
func ParseClass(s string) (Class, error) {
	for i, n := range classNames {
		if n == s {
			return Class(i), nil
		}
	}
	return ClassNone, fmt.Errorf("unknown node class %q (want fast or slow)", s)
}

// Reasons recorded in Node.Reason.
const (
	reasonOverride = "config override"
	reasonNoMemory = "node has no memory"
	reasonCPUs     = "has CPUs: DRAM local to a socket"
	reasonCPULess  = "no CPUs: memory-only node (CXL or other far memory)"
)

// Classify sets every node's Class and Reason. Rules, first match wins:
//  1. overrides[id], from the config;
//  2. a node without memory is ClassNone;
//  3. when the kernel puts memory nodes in more than one memory tier, the
//     nodes of the fastest (lowest-numbered) tier are fast and the others
//     slow;
//  4. a node without CPUs is slow, a node with CPUs fast.
//
// An override naming a node that is not online is an error (ErrNoNode).
func (t *Topology) Classify(overrides map[int]Class) error {
	ids := make([]int, 0, len(overrides))
	for id := range overrides {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if _, err := t.Node(id); err != nil {
			return fmt.Errorf("class override: %w", err)
		}
		if c := overrides[id]; c != ClassFast && c != ClassSlow {
			return fmt.Errorf("class override for node %d: %s is not fast or slow", id, c)
		}
	}
	fastest, tiered := t.tierSpread()
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if c, ok := overrides[n.ID]; ok {
			n.Class, n.Reason = c, reasonOverride
			continue
		}
		n.Class, n.Reason = classifyNode(n, fastest, tiered)
	}
	return nil
}

// tierSpread returns the fastest tier holding a memory node, and whether
// memory nodes sit in more than one tier.
func (t *Topology) tierSpread() (fastest int, tiered bool) {
	fastest = NoTier
	seen := map[int]bool{}
	for _, n := range t.Nodes {
		if !n.HasMemory() || n.Tier == NoTier {
			continue
		}
		seen[n.Tier] = true
		if fastest == NoTier || n.Tier < fastest {
			fastest = n.Tier
		}
	}
	return fastest, len(seen) > 1
}

func classifyNode(n *Node, fastest int, tiered bool) (Class, string) {
	switch {
	case !n.HasMemory():
		return ClassNone, reasonNoMemory
	case tiered && n.Tier == fastest:
		return ClassFast, fmt.Sprintf("kernel memory tier %d is the fastest tier", n.Tier)
	case tiered && n.Tier != NoTier:
		return ClassSlow, fmt.Sprintf("kernel memory tier %d is below the fastest tier %d", n.Tier, fastest)
	}
	suffix := ""
	switch {
	case n.Tier == NoTier:
		suffix = " (in no kernel memory tier)"
	case !tiered:
		suffix = fmt.Sprintf(" (all memory nodes share kernel memory tier %d)", n.Tier)
	}
	if len(n.CPUs) == 0 {
		return ClassSlow, reasonCPULess + suffix
	}
	return ClassFast, reasonCPUs + suffix
}
