package policy

func init() {
	Register(Info{
		Name: "heavy_hitter",
		Doc: "heavy hitters (after H2O): evict the resident block with the lowest accumulated access score, " +
			"which survives eviction for a while; optionally the most recent blocks are kept regardless",
		Params: []Param{
			{Name: "recent", Default: "0", Doc: "share of the resident blocks kept by recency, as H2O's recent " +
				"window, in [0,1); 0 ranks every block by score"},
			{Name: "history", Default: "1", Doc: "evicted blocks whose score is remembered, as a multiple of the " +
				"capacity in blocks, >= 0"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			recent, history := p.Float("recent"), p.Float("history")
			p.Check(recent >= 0 && recent < 1, "recent", "a share in [0,1)")
			p.Check(history >= 0, "history", "a multiple >= 0")
			return NewHeavyHitter(recent, history, env), nil
		},
	})
}

// HeavyHitter keeps the blocks with the highest accumulated access score,
// as H2O (Zhang et al., NeurIPS'23) keeps the tokens with the highest
// accumulated attention. An access adds 1 to the block's score (kvtier sees
// accesses, not attention weights). The score is long-term popularity: it
// does not decay (the seed gives heavy_hitter none, and names its slowness
// to adapt to phase changes as its blind spot) and it survives eviction in a
// ghost list, so a block readmitted soon resumes its score. Ties go to the
// least recently used block. With recent > 0 the most recently used share of
// the resident blocks is kept regardless of score (H2O's recent window);
// blocks leaving it rejoin the scored ones.
//
// Events are O(log n). State: one entry per resident block plus at most
// history × capacity-in-blocks ghosts, dropped oldest first. A ghost keeps
// its block's entry (found through the block's slot, like a resident's) in
// a FIFO, and entries are recycled, so no event allocates once the table
// has grown.
type HeavyHitter struct {
	entries  entryTable[hhEntry, *hhEntry] // residents and ghosts
	resident int
	scored   minHeap
	recent   list
	ghosts   list // ghost entries' nodes, newest eviction at the front
	cap      blockCap
	share    float64
	history  float64
	step     int64
	miss     missCount // of the last block accessed while not resident
}

type hhEntry struct {
	it       item // in scored; key is the score, tie the last access step
	n        node // in recent, or in ghosts once evicted
	inRecent bool
	ghost    bool // evicted; it.key holds the remembered score
}

func (e *hhEntry) slotBlock() *Block { return e.it.b }
func (e *hhEntry) slotOwner() any    { return e.it.owner }
func (e *hhEntry) setSlot(b *Block, owner any) {
	e.it.b, e.it.owner = b, owner
}

// NewHeavyHitter returns an empty heavy-hitter policy that keeps a recent
// share of the resident blocks by recency and remembers the scores of
// history × capacity evicted blocks.
func NewHeavyHitter(recent, history float64, env Env) *HeavyHitter {
	return &HeavyHitter{
		scored:  minHeap{quad: true}, // ties are unique steps
		cap:     newBlockCap(env),
		share:   recent,
		history: history,
	}
}

// Access adds 1 to the block's score. A resident block becomes the most
// recent; the access of a block not resident counts once it is admitted.
func (p *HeavyHitter) Access(b *Block, _ Time) {
	p.step++
	e, ok := p.entries.get(b)
	if !ok || e.ghost {
		p.miss.miss(b.ID)
		return
	}
	e.it.key++
	e.it.tie = p.step
	switch {
	case e.inRecent:
		p.recent.moveToFront(&e.n)
	case p.share > 0:
		p.scored.remove(&e.it)
		e.inRecent = true
		p.recent.pushFront(&e.n)
		p.balance()
	default:
		p.scored.fix(&e.it)
	}
}

// Admit inserts b with its remembered score plus its accesses since.
func (p *HeavyHitter) Admit(b *Block, _ Time) {
	p.step++
	var score float64
	if g, ok := p.entries.get(b); ok {
		if !g.ghost {
			return
		}
		score = g.it.key
		p.dropGhost(g)
	}
	e := p.entries.add(b)
	e.n.b, e.it.tie, e.it.key = b, p.step, score
	e.it.key += float64(p.miss.take(b.ID))
	p.resident++
	p.cap.observe(p.resident)
	if p.share > 0 {
		e.inRecent = true
		p.recent.pushFront(&e.n)
		p.balance()
		return
	}
	p.scored.push(&e.it)
}

// balance moves the oldest recent blocks to the scored ones while the
// recent list holds more than its share.
func (p *HeavyHitter) balance() {
	limit := int(p.share * float64(p.cap.get()))
	for p.recent.len() > limit {
		n := p.recent.back()
		p.recent.remove(n)
		e, _ := p.entries.get(n.b)
		e.inRecent = false
		p.scored.push(&e.it)
	}
}

// Evict removes b and remembers its score.
func (p *HeavyHitter) Evict(b *Block, _ Time) {
	e, ok := p.entries.get(b)
	if !ok || e.ghost {
		return
	}
	p.unlink(e)
	limit := int(p.history * float64(p.cap.get()))
	if limit <= 0 {
		p.entries.remove(e)
		return
	}
	e.ghost, e.inRecent = true, false
	e.it.key = float64(int64(e.it.key))
	p.ghosts.pushFront(&e.n)
	for p.ghosts.len() > limit {
		g, _ := p.entries.get(p.ghosts.back().b)
		p.dropGhost(g)
	}
}

// unlink takes the resident entry e out of recent or scored.
func (p *HeavyHitter) unlink(e *hhEntry) {
	if e.inRecent {
		p.recent.remove(&e.n)
	} else {
		p.scored.remove(&e.it)
	}
	p.resident--
}

// dropGhost forgets the ghost entry g.
func (p *HeavyHitter) dropGhost(g *hhEntry) {
	p.ghosts.remove(&g.n)
	p.entries.remove(g)
}

// Forget removes b and its remembered score.
func (p *HeavyHitter) Forget(b *Block) {
	if e, ok := p.entries.get(b); ok {
		if e.ghost {
			p.dropGhost(e)
		} else {
			p.unlink(e)
			p.entries.remove(e)
		}
	}
	p.miss.forget(b.ID)
}

// Victim returns the lowest-scored block outside the recent share, or the
// least recent block when every resident block is in it.
func (p *HeavyHitter) Victim(Time) (*Block, bool) {
	if it := p.scored.min(); it != nil {
		return it.b, true
	}
	if n := p.recent.back(); n != nil {
		return n.b, true
	}
	return nil, false
}

// Len returns the number of resident blocks.
func (p *HeavyHitter) Len() int { return p.resident }
