package policy

import (
	"math"
	"math/rand/v2"
)

// Experts of the regret-minimising policies (LeCaR, CACHEUS), stored in
// node.queue of a history entry: the expert whose eviction it records.
const (
	expertRecency   uint8 = 0 // LRU (LeCaR) or SR-LRU (CACHEUS)
	expertFrequency uint8 = 1 // LFU (LeCaR) or CR-LFU (CACHEUS)
	expertBoth      uint8 = 2 // both experts agreed: no regret to assign
)

// regretLearner holds what LeCaR and CACHEUS share: the experts' weights,
// the request clock and the history of evictions (ghosts), newest first.
//
// A ghost hit means the expert that evicted the block made a mistake: the
// other expert's weight is multiplied by e^(λ·r), where the reward
// r = discount^(age/c) decays with the ghost's age in requests (c is the
// capacity in blocks, so a ghost c requests old earns discount, 0.005 in the
// papers), and the weights are renormalised. The history is FIFO and holds at
// most c entries.
type regretLearner struct {
	w        [2]float64
	lr       float64
	discount float64
	clock    int64 // requests (Access calls)
	rng      *rand.Rand
	hist     list
	// The last victim proposed and the expert that chose it, until the
	// next event.
	pending   *Block
	pendingBy uint8
}

func newRegretLearner(lr, discount float64, seed int64) regretLearner {
	return regretLearner{
		w:        [2]float64{0.5, 0.5},
		lr:       lr,
		discount: discount,
		rng:      rand.New(rand.NewPCG(uint64(seed), 0x6c65636172)),
	}
}

// choose draws the expert to follow: recency with probability w[0].
func (l *regretLearner) choose() uint8 {
	if l.rng.Float64() < l.w[expertRecency] {
		return expertRecency
	}
	return expertFrequency
}

// request counts a request (an Access) and ends the pending proposal.
func (l *regretLearner) request() {
	l.pending = nil
	l.clock++
}

// propose returns the victim given the recency expert's proposal rec and
// the frequency expert's freq: the pending victim if there is one, else rec
// when both agree, else the proposal of an expert drawn by weight. The
// victim stays pending until the next event.
func (l *regretLearner) propose(rec, freq *Block) *Block {
	if l.pending == nil {
		switch {
		case rec == freq:
			l.pending, l.pendingBy = rec, expertBoth
		case l.choose() == expertRecency:
			l.pending, l.pendingBy = rec, expertRecency
		default:
			l.pending, l.pendingBy = freq, expertFrequency
		}
	}
	return l.pending
}

// blame returns the expert that proposed b, just evicted, or expertBoth when
// the caller evicted a block the policy did not propose, and ends the
// pending proposal.
func (l *regretLearner) blame(b *Block) uint8 {
	by := expertBoth
	if l.pending == b {
		by = l.pendingBy
	}
	l.pending = nil
	return by
}

// remember records n, just evicted by expert by, as the newest ghost and
// returns the oldest ghosts beyond limit, removed from the history, through
// drop.
func (l *regretLearner) remember(n *node, by uint8, limit int, drop func(*node)) {
	n.queue, n.at, n.visited = by, l.clock, false
	l.hist.pushFront(n)
	for l.hist.len() > limit {
		old := l.hist.back()
		l.hist.remove(old)
		drop(old)
	}
}

// ghostHit applies the regret of the ghost n once (a repeated access to the
// same ghost before it is readmitted is not a new mistake). c is the
// capacity in blocks.
func (l *regretLearner) ghostHit(n *node, c int) {
	if n.visited || n.queue == expertBoth {
		return
	}
	n.visited = true
	age := float64(l.clock - n.at)
	r := math.Pow(l.discount, age/float64(c))
	other := 1 - n.queue
	l.w[other] *= math.Exp(l.lr * r)
	sum := l.w[0] + l.w[1]
	l.w[0] /= sum
	l.w[1] = 1 - l.w[0]
}

// xentry is a block's state in a regret-minimising policy: a list node
// (recency order while resident, the history while a ghost) and a heap
// item (frequency order while resident).
type xentry struct {
	n     node
	it    item
	ghost bool
	// CACHEUS's SR-LRU marks: demoted from R into SR while resident; left
	// SR as a new block (never reused) while a ghost.
	demoted, wasNew bool
}

// xentry's block is it.b and its table it.owner (see entryTable).
func (e *xentry) slotBlock() *Block { return e.it.b }
func (e *xentry) slotOwner() any    { return e.it.owner }
func (e *xentry) setSlot(b *Block, owner any) {
	e.it.b, e.it.owner = b, owner
}

// xentries holds the xentries of LeCaR and CACHEUS.
type xentries = entryTable[xentry, *xentry]
