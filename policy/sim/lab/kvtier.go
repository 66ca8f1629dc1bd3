package lab

import (
	"fmt"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// kvtierChooser runs a kvtier policy in the lab model: one instance per
// tier, each tracking the pages resident in its tier (Admit when a page
// enters the tier, Evict when it leaves) and choosing that tier's victims.
// Tier 0's instance hears every access, as in sim; a lower tier's hears
// the accesses to the pages it holds (which promote them at once), or
// every access when the policy asks to (policy.AllAccesses), as the lab's
// own policies do. Each
// instance has its own Block per page, since a Block carries the state of
// one policy. Before each access the page's Next is set to the step of
// its next access (policy.Never if none), so offline policies (belady)
// see the future as in sim. A victim the policy cannot name among the
// tier's pages (it holds none) falls back to the page longest in the tier.
type kvtierChooser struct {
	pols   []policy.Policy
	blocks [][]policy.Block // [tier][page]
	in     [][]bool         // [tier][page]: resident per the moves reported
	all    []bool           // [tier]: the policy hears every access (policy.AllAccesses)
	next   []int64          // [step]: the step of the same page's next access
}

func newKvtierChooser(spec string, h sim.Hierarchy, lt trace.LabTrace, seed int64) (*kvtierChooser, error) {
	return newKvtierChooserWith(func(env policy.Env) (policy.Policy, error) { return policy.New(spec, env) }, h, lt,
		seed)
}

// newKvtierChooserWith is newKvtierChooser with the policy of every tier
// made by mk.
func newKvtierChooserWith(mk func(policy.Env) (policy.Policy, error), h sim.Hierarchy, lt trace.LabTrace,
	seed int64) (*kvtierChooser, error) {
	sizes := lt.Sizes
	c := &kvtierChooser{next: nextUse(lt)}
	for _, tr := range h.Tiers {
		p, err := mk(policy.Env{CapacityBytes: tr.Capacity, Seed: seed, PerTier: true})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadSpec, err)
		}
		blocks := make([]policy.Block, len(sizes))
		for i := range blocks {
			blocks[i] = policy.Block{ID: uint64(i),
				Meta: policy.Meta{Size: sizes[i], Priority: policy.PriorityNormal, RefCount: 1}}
		}
		c.pols = append(c.pols, p)
		aa, ok := p.(policy.AllAccesses)
		c.all = append(c.all, ok && aa.HearsAllAccesses())
		c.blocks = append(c.blocks, blocks)
		c.in = append(c.in, make([]bool, len(sizes)))
	}
	return c, nil
}

// nextUse returns, for every step, the step of the next access to the
// same page, or policy.Never.
func nextUse(lt trace.LabTrace) []int64 {
	next := make([]int64, len(lt.Accesses))
	seen := make([]int64, len(lt.Sizes))
	for i := range seen {
		seen[i] = policy.Never
	}
	for s := len(lt.Accesses) - 1; s >= 0; s-- {
		p := lt.Accesses[s]
		next[s], seen[p] = seen[p], int64(s)
	}
	return next
}

func (c *kvtierChooser) access(page, step int) {
	for t := range c.blocks {
		c.blocks[t][page].Next = c.next[step]
	}
	c.pols[0].Access(&c.blocks[0][page], int64(step))
	for t := 1; t < len(c.pols); t++ {
		if c.in[t][page] || c.all[t] {
			c.pols[t].Access(&c.blocks[t][page], int64(step))
		}
	}
}

func (c *kvtierChooser) inserted(int, int) {}
func (c *kvtierChooser) evicted(int, int)  {}

func (c *kvtierChooser) entered(page, tier, step int) {
	c.in[tier][page] = true
	c.pols[tier].Admit(&c.blocks[tier][page], int64(step))
}

func (c *kvtierChooser) left(page, tier, step int) {
	c.in[tier][page] = false
	c.pols[tier].Evict(&c.blocks[tier][page], int64(step))
}

func (c *kvtierChooser) victim(tier int, cands []int, step int) int {
	b, ok := c.pols[tier].Victim(int64(step))
	if ok {
		for i, p := range cands {
			if uint64(p) == b.ID {
				return i
			}
		}
	}
	return 0
}
