package policy

import "math/bits"

func init() {
	Register(Info{
		Name: "prefix_chain",
		Doc: "prefix-chain aware: blocks read as a prefix chain (a request reading its blocks in order) age by the " +
			"time the chain was read and leave tail first; shared blocks (RefCount > 1) live longer; blocks at the " +
			"frontier of their sequence (decode appends, a prompt's last block) wait in a probation FIFO until reused",
		Params: []Param{
			{Name: "share", Default: "1", Doc: "initial lifetime bonus of shared blocks: a block read by r requests " +
				"lives share x capacity x floor(log2(r)) steps longer, >= 0"},
			{Name: "adapt", Default: "0.02", Doc: "factor by which a ghost hit moves share up (shared ghost) or down " +
				"(private ghost), in [0,1); 0 keeps share fixed"},
			{Name: "probation", Default: "0", Doc: "share of the capacity (in blocks) frontier blocks may hold " +
				"before they are evicted first, in [0,1)"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			c := PrefixChainConfig{Share: p.Float("share"), Adapt: p.Float("adapt"), Probation: p.Float("probation")}
			p.Check(c.Adapt >= 0 && c.Adapt < 1, "adapt", "a factor in [0,1)")
			p.Check(c.Share >= 0 && c.Share < 1e6, "share", "a factor >= 0")
			p.Check(c.Probation >= 0 && c.Probation < 1, "probation", "a share in [0,1)")
			return NewPrefixChain(c, env), nil
		},
	})
}

// PrefixChainConfig holds the parameters of prefix_chain.
type PrefixChainConfig struct {
	Share     float64 // initial lifetime bonus of shared blocks, in capacities per doubling of RefCount
	Adapt     float64 // step of the multiplicative adaptation of Share on ghost hits
	Probation float64 // share of the capacity frontier blocks may hold before going first
}

// PrefixChain uses the structure of KV prefix caches, where a request
// reads the blocks of its prompt in order (Meta.Seq the request, Meta.Pos
// the block's index in it) and a block is only useful after its
// predecessor: a prefix hit stops at the first missing block. A step is
// one access.
//
// Chains. Accesses of one sequence at consecutive positions (Seq equal,
// Pos one more than the previous access) form a run: a request reading its
// prefix. Every block of a run ages from the step the run began, and
// within a run the block of highest Pos goes first. Under plain LRU the
// head of a chain (read first) is the oldest and leaves first, so when the
// chain is read again its head misses, and re-admitting the head evicts
// the chain's own tail just before it is read: the whole chain misses.
// Evicting tail first keeps heads, so a returning request hits its prefix
// up to the first evicted block. Accesses that do not continue a run
// (random reads, blocks without positions) start runs of one block, so on
// such traces, without sharing or frontier blocks, the order is LRU.
//
// Sharing. A block read by r requests (Meta.RefCount, as the Mooncake
// reader counts it; shared prefixes such as system prompts) is in sharing
// class floor(log2 r) and keeps its place share x capacity x class steps
// longer, so shared heads outlive private tails while still ageing out once
// no request reads them. How much longer depends on the trace and the
// capacity, so share adapts as ARC's target does: evicted chain blocks are
// remembered (IDs only) in a shared and a private ghost FIFO of capacity
// entries each; a returning shared ghost multiplies share by 1+Adapt (a
// shared block should have stayed), a returning private ghost divides it
// by 1+Adapt. Share stays within [1/64, 64].
//
// Frontier blocks. A block at the end of its sequence and not shared
// (Pos == SeqLen-1, RefCount <= 1: a decode append, or a prompt's last,
// usually partial, block whose hash the next turn does not share) is
// almost never read again in serving traces. It waits in a probation FIFO
// and is evicted before any other block once probation holds more than
// Probation x the capacity in blocks (by default at once); a hit moves it
// to the chains. This makes single-use decode blocks scan-resistant.
//
// State: one entry per resident block, two ghost FIFOs of at most the
// capacity in blocks each, and the current run. Access, Admit, Evict and
// Forget are O(log n) (one min-heap per sharing class, at most 32 classes;
// a list for probation); Victim compares the heads of the non-empty
// classes: O(1).
type PrefixChain struct {
	cfg     PrefixChainConfig
	entries pcEntries   // residents and ghosts
	classes [32]keyHeap // chain blocks by sharing class, ordered by (run start, -Pos): key = pcKey, tie = -Pos
	nchain  int
	prob    list // probation, newest at the front
	shared  list // ghosts of shared chain blocks, newest at the front
	private list // ghosts of private chain blocks, newest at the front
	share   float64
	cap     blockCap
	clock   int64
	victim  *item // the item of the last chain block Victim returned (see Evict)

	runSeq   uint64
	runNext  int32 // Pos that continues the run
	runStart int64
}

// States of a pcEntry.
const (
	pcChain        uint8 = iota // resident, in classes[it.rank]
	pcProbation                 // resident, in prob
	pcSharedGhost               // evicted, in shared
	pcPrivateGhost              // evicted, in private
)

// pcEntry is a block's state in prefix_chain, found through the block's
// slot (see entryTable): a heap item while in the chains, a list node while
// in probation or a ghost FIFO. Its item's owner is the entry itself, so
// that the entry of a chain block is found from its item without reading
// the block (see Evict); the table holding it is owner.
type pcEntry struct {
	it    item
	n     node
	owner *pcEntries
	state uint8
}

// pcEntries holds prefix_chain's entries.
type pcEntries = entryTable[pcEntry, *pcEntry]

func (e *pcEntry) slotBlock() *Block { return e.it.b }
func (e *pcEntry) slotOwner() any    { return e.owner }
func (e *pcEntry) setSlot(b *Block, owner any) {
	e.it.b, e.n.b = b, b
	e.owner, _ = owner.(*pcEntries)
	e.it.owner = nil
	if e.owner != nil {
		e.it.owner = e
	}
}

// Share bounds.
const (
	minShare = 1.0 / 64
	maxShare = 64.0
)

// NewPrefixChain returns an empty prefix-chain policy.
func NewPrefixChain(c PrefixChainConfig, env Env) *PrefixChain {
	return &PrefixChain{cfg: c, share: c.Share, cap: newBlockCap(env), runNext: -1}
}

// Share returns the current lifetime bonus of shared blocks, in
// capacities per sharing class.
func (p *PrefixChain) Share() float64 { return p.share }

// frontier reports whether b is an unshared block at the end of its
// sequence.
func frontier(m *Meta) bool { return m.SeqLen > 0 && m.Pos == m.SeqLen-1 && m.RefCount <= 1 }

// sharingClass returns floor(log2 RefCount), 0 for unshared blocks.
func sharingClass(m *Meta) int32 {
	if m.RefCount <= 1 {
		return 0
	}
	return int32(bits.Len32(uint32(m.RefCount)) - 1)
}

// pcTieSpan bounds the ties pcKey tells apart: -Pos within ±2^24.
const pcTieSpan = 1 << 24

// pcKey returns a chain item's heap key: its run start plus a fraction
// growing with its tie (-Pos), so that a class heap's slots order most
// items of one run without reading their ties (see tieKey). Ties are told
// apart exactly while the start is below 2^26.
func pcKey(start, tie int64) float64 { return tieKey(float64(start), tie, pcTieSpan) }

// Access advances the step and the current run. A resident block moves to
// the current run and its sharing class (a probation block joins the
// chains); a returning ghost adapts share.
func (p *PrefixChain) Access(b *Block, _ Time) {
	p.clock++
	m := &b.Meta
	if m.Seq != p.runSeq || m.Pos != p.runNext {
		p.runSeq, p.runStart = m.Seq, p.clock
	}
	p.runNext = m.Pos + 1
	e, ok := p.entries.get(b)
	if !ok {
		return
	}
	switch e.state {
	case pcProbation:
		p.prob.remove(&e.n)
		p.addChain(e)
	case pcChain:
		it := &e.it
		p.classes[it.rank].remove(it)
		it.last, it.rank, it.tie = p.runStart, sharingClass(m), -int64(m.Pos)
		it.key = pcKey(it.last, it.tie)
		p.classes[it.rank].push(it)
	case pcSharedGhost:
		p.share = min(p.share*(1+p.cfg.Adapt), maxShare)
		p.dropGhost(e)
	case pcPrivateGhost:
		p.share = max(p.share/(1+p.cfg.Adapt), minShare)
		p.dropGhost(e)
	}
}

// addChain puts e's block in the chains as part of the current run.
func (p *PrefixChain) addChain(e *pcEntry) {
	m := &e.it.b.Meta
	e.state = pcChain
	e.it.last, e.it.rank, e.it.tie = p.runStart, sharingClass(m), -int64(m.Pos)
	e.it.key = pcKey(e.it.last, e.it.tie)
	p.classes[e.it.rank].push(&e.it)
	p.nchain++
}

// dropGhost forgets the ghost entry g.
func (p *PrefixChain) dropGhost(g *pcEntry) {
	if g.state == pcSharedGhost {
		p.shared.remove(&g.n)
	} else {
		p.private.remove(&g.n)
	}
	p.entries.remove(g)
}

// Admit inserts b into probation if it is a frontier block, else into the
// chains as part of the current run.
func (p *PrefixChain) Admit(b *Block, _ Time) {
	if g, ok := p.entries.get(b); ok {
		if g.state == pcChain || g.state == pcProbation {
			return
		}
		p.dropGhost(g)
	}
	e := p.entries.add(b)
	if frontier(&b.Meta) {
		e.state = pcProbation
		p.prob.pushFront(&e.n)
	} else {
		p.addChain(e)
	}
	p.cap.observe(p.Len())
}

// Update moves a chain block whose sharing or position changed.
func (p *PrefixChain) Update(b *Block, _ Meta, _ Time) {
	if e, ok := p.entries.get(b); ok && e.state == pcChain {
		it := &e.it
		p.classes[it.rank].remove(it)
		it.rank, it.tie = sharingClass(&b.Meta), -int64(b.Meta.Pos)
		it.key = pcKey(it.last, it.tie)
		p.classes[it.rank].push(it)
	}
}

// unlink takes the resident entry e out of the chains or probation.
func (p *PrefixChain) unlink(e *pcEntry) {
	if e.state == pcProbation {
		p.prob.remove(&e.n)
		return
	}
	p.classes[e.it.rank].remove(&e.it)
	p.nchain--
}

// Evict removes b and remembers a chain block as a ghost. The chain
// block Victim just returned is usually the one evicted: its entry is
// found from the item at hand from Victim, without reading b's slot (a
// miss on a large cache).
func (p *PrefixChain) Evict(b *Block, _ Time) {
	var e *pcEntry
	if it := p.chained(p.victim, b); it != nil {
		e = it.owner.(*pcEntry)
	} else if e, _ = p.entries.get(b); e == nil || e.state > pcProbation {
		return
	}
	p.unlink(e)
	if e.state != pcChain || p.cfg.Adapt == 0 {
		p.entries.remove(e)
		return
	}
	ghosts := &p.private
	e.state = pcPrivateGhost
	if e.it.rank > 0 {
		ghosts, e.state = &p.shared, pcSharedGhost
	}
	ghosts.pushFront(&e.n)
	for limit := p.cap.get(); ghosts.len() > limit; {
		g, _ := p.entries.get(ghosts.back().b)
		p.dropGhost(g)
	}
}

// Forget removes b and its ghost.
func (p *PrefixChain) Forget(b *Block) {
	e, ok := p.entries.get(b)
	if !ok {
		return
	}
	if e.state > pcProbation {
		p.dropGhost(e)
		return
	}
	p.unlink(e)
	p.entries.remove(e)
}

// Victim returns the oldest probation block when probation is over its
// share (or holds everything), else the chain block with the oldest run
// start plus sharing bonus, tail first.
func (p *PrefixChain) Victim(Time) (*Block, bool) {
	if n := p.prob.back(); n != nil && (p.prob.len() > int(p.cfg.Probation*float64(p.cap.get())) || p.nchain == 0) {
		return n.b, true
	}
	var best *item
	var bestKey float64
	bonus := p.share * float64(p.cap.get())
	for c := range p.classes {
		it := p.classes[c].min()
		if it == nil {
			continue
		}
		key := float64(it.last) + bonus*float64(c)
		if best == nil || key < bestKey || (key == bestKey && it.tie < best.tie) {
			best, bestKey = it, key
		}
	}
	if best == nil {
		return nil, false
	}
	p.victim = best
	return best.b, true
}

// chained returns it if it is the item of b in the chains (b is a
// resident chain block and it its entry's item), else nil.
func (p *PrefixChain) chained(it *item, b *Block) *item {
	if it == nil || it.b != b || it.rank < 0 || int(it.rank) >= len(p.classes) {
		return nil
	}
	if !p.classes[it.rank].holds(it) {
		return nil
	}
	return it
}

// Len returns the number of resident blocks.
func (p *PrefixChain) Len() int { return p.nchain + p.prob.len() }
