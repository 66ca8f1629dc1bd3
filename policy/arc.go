package policy

func init() {
	Register(Info{
		Name: "arc",
		Doc: "ARC (Megiddo & Modha, FAST'03): recency list T1 and frequency list T2 with ghost lists B1 and B2; " +
			"a ghost hit moves the target size p of T1 toward the list that would have kept the block",
		New: func(_ *Params, env Env) (Policy, error) { return NewARC(env), nil },
	})
}

// Lists of ARC, stored in node.queue.
const (
	arcT1 uint8 = iota // resident, seen once since admission
	arcT2              // resident, seen at least twice
	arcB1              // ghost of a block evicted from T1
	arcB2              // ghost of a block evicted from T2
)

// ARC is the Adaptive Replacement Cache (Megiddo & Modha, "ARC: A
// Self-Tuning, Low Overhead Replacement Cache", FAST'03), counted in blocks.
//
// Resident blocks sit in T1 (admitted and not accessed since) or T2
// (accessed again while resident). Evicted blocks leave ghosts in B1 and
// B2. An access to a B1 ghost means T1 was too small: the target p of T1
// grows by max(1, |B2|/|B1|); an access to a B2 ghost shrinks p by
// max(1, |B1|/|B2|). A ghost is readmitted into T2. The victim is the LRU
// block of T1 when |T1| > p (or |T1| = p and the block being brought in is a
// B2 ghost), else the LRU block of T2.
//
// The Policy interface splits the paper's single request into Access
// (where p adapts, once per ghost), Victim and Admit; the ghost stays in its
// list until Admit so that a caller that never admits it leaves the bounds
// intact.
//
// Every event is O(1). State: with c the capacity in blocks (Env.CapacityBlocks,
// or the most blocks ever resident), |T1|+|B1| <= c and |T1|+|T2|+|B1|+|B2| <= 2c,
// so at most c ghosts when the cache is full.
type ARC struct {
	nodes nodeTable // residents and ghosts
	lists [4]list
	p     float64 // target size of T1 in blocks
	cap   blockCap
	// incomingB2 is set when the last access was to a B2 ghost, for the
	// tie rule of REPLACE.
	incomingB2 bool
}

// NewARC returns an empty ARC policy.
func NewARC(env Env) *ARC {
	return &ARC{cap: newBlockCap(env)}
}

// P returns the current target size of T1 in blocks.
func (p *ARC) P() float64 { return p.p }

// Sizes returns |T1|, |T2|, |B1| and |B2|.
func (p *ARC) Sizes() (t1, t2, b1, b2 int) {
	return p.lists[arcT1].len(), p.lists[arcT2].len(), p.lists[arcB1].len(), p.lists[arcB2].len()
}

// Access moves a resident block to the MRU end of T2 and adapts p on the
// first access to a ghost.
func (p *ARC) Access(b *Block, _ Time) {
	n, ok := p.nodes.get(b)
	if !ok {
		p.incomingB2 = false
		return
	}
	switch n.queue {
	case arcT1, arcT2:
		p.move(n, arcT2)
		p.incomingB2 = false
		return
	}
	p.incomingB2 = n.queue == arcB2
	if n.visited {
		return
	}
	n.visited = true
	c := float64(p.cap.get())
	b1, b2 := float64(p.lists[arcB1].len()), float64(p.lists[arcB2].len())
	if n.queue == arcB1 {
		p.p = min(p.p+max(1, b2/b1), c)
	} else {
		p.p = max(p.p-max(1, b1/b2), 0)
	}
}

// move puts n at the MRU end of list q.
func (p *ARC) move(n *node, q uint8) {
	p.lists[n.queue].remove(n)
	n.queue = q
	p.lists[q].pushFront(n)
}

// Admit inserts b into T2 if it is a ghost, else into T1.
func (p *ARC) Admit(b *Block, _ Time) {
	if n, ok := p.nodes.get(b); ok {
		if n.queue == arcB1 || n.queue == arcB2 {
			n.b, n.visited = b, false
			p.move(n, arcT2)
		}
	} else {
		n := p.nodes.add(b)
		n.queue = arcT1
		p.lists[arcT1].pushFront(n)
	}
	p.incomingB2 = false
	p.cap.observe(p.Len())
	p.trim()
}

// Evict moves b from T1 to B1 or from T2 to B2.
func (p *ARC) Evict(b *Block, _ Time) {
	n, ok := p.nodes.get(b)
	if !ok {
		return
	}
	switch n.queue {
	case arcT1:
		p.move(n, arcB1)
	case arcT2:
		p.move(n, arcB2)
	default:
		return
	}
	n.visited = false
	p.trim()
}

// trim drops the oldest ghosts until the directory bounds hold.
func (p *ARC) trim() {
	c := p.cap.get()
	t1, t2, b1, b2 := &p.lists[arcT1], &p.lists[arcT2], &p.lists[arcB1], &p.lists[arcB2]
	for b1.len() > 0 && t1.len()+b1.len() > c {
		p.drop(b1.back())
	}
	for t1.len()+t2.len()+b1.len()+b2.len() > 2*c {
		if b2.len() > 0 {
			p.drop(b2.back())
		} else if b1.len() > 0 {
			p.drop(b1.back())
		} else {
			return
		}
	}
}

func (p *ARC) drop(n *node) {
	p.lists[n.queue].remove(n)
	p.nodes.remove(n)
}

// Forget removes b and its ghost.
func (p *ARC) Forget(b *Block) {
	if n, ok := p.nodes.get(b); ok {
		p.drop(n)
	}
}

// Victim returns the LRU block of T1 or T2 as ARC's REPLACE chooses.
func (p *ARC) Victim(Time) (*Block, bool) {
	t1, t2 := &p.lists[arcT1], &p.lists[arcT2]
	n1 := float64(t1.len())
	if t1.len() > 0 && (n1 > p.p || (p.incomingB2 && n1 == p.p) || t2.len() == 0) {
		return t1.back().b, true
	}
	if t2.len() > 0 {
		return t2.back().b, true
	}
	return nil, false
}

// Len returns the number of resident blocks.
func (p *ARC) Len() int { return p.lists[arcT1].len() + p.lists[arcT2].len() }
