package policy

import (
	"math/bits"
	"slices"
)

func init() {
	Register(Info{
		Name: "reuse_lru",
		Doc: "LRU with learned lifetimes: a block's place in the queue is its last access plus the mean eviction " +
			"age scaled by the reuse probability of its class (reads so far, frontier) over the mean, learned online " +
			"from which accesses were followed by another",
		Params: []Param{
			{Name: "window", Default: "32", Doc: "the learned counts halve every window x capacity accesses, > 0"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			w := p.Float("window")
			p.Check(w > 0 && w < 1e6, "window", "a factor > 0")
			return NewReuseLRU(w, env), nil
		},
	})
}

// reuseReadBuckets is the number of read-count classes: 1, 2-3, 4-7, 8-15
// and 16 or more reads (log2 buckets, as hit_density's).
const reuseReadBuckets = 5

// reuseClasses is the number of classes: read buckets x frontier or not.
const reuseClasses = 2 * reuseReadBuckets

// ReuseLRU is LRU whose blocks live longer or shorter by how likely their
// class is to be read again, learned online (in the spirit of LRB, Song et
// al., NSDI'20, with a table of counts for the model and "read again at
// all" for the label).
//
// Classes. A block's class is its reads so far in log2 buckets (the larger
// of Meta.RefCount, which the Mooncake reader sets to the requests that
// have read the block, and the reads counted while resident) and whether it
// is at the frontier of its sequence (an unshared last block: a decode
// append or a prompt's partial last block).
//
// Learning. Each access adds one to its class's total. An access of a
// resident block, or one with RefCount r >= 2, shows that the block's
// previous access (made with r-1 reads) was followed by another: it adds
// one to the reuse count of that class (the class the block had then if
// it is resident, else r-1 reads and not frontier). So where RefCount
// counts reads (the Mooncake reader) the labels need no state for evicted
// blocks; elsewhere only hits teach.
// Counts halve every Window capacities of accesses, so the model follows
// changes. The reuse probability of class c is p(c) = (reuse+2p̄)/(total+2).
//
// Order. At each access a resident block's key becomes now + E x p(c)/p̄,
// where E is the mean age at eviction (a moving average over the last
// evictions) and p̄ the probability over all classes; the smallest key is
// evicted. A block of average class is therefore kept as under LRU, one
// twice as likely to be read again about one eviction age longer: the
// expected hits per slot and step are equalised across classes, as
// Bélády's choice equalises them with known futures. Keys are computed at
// access and not revised, so every event is O(log n) (one min-heap).
//
// State: one entry per resident block, the class counts, and E.
type ReuseLRU struct {
	lifetimes
	classCounts
}

// rlEntry is a tracked block's state: its heap item and class. reuse_req
// also keeps the entry of a block no longer resident (gone) while it has
// a ghost (the index of its slot in reqGhosts, 0 none); both fit in the
// padding after class. Its item's owner is the entry itself, so that the
// entry of a resident block is found from its item without reading the
// block (see Evict); the table holding it is owner.
type rlEntry struct {
	it    item
	owner *rlEntries
	class uint8
	gone  bool
	ghost int32
}

// rlEntries holds reuse_lru's and reuse_req's entries.
type rlEntries = entryTable[rlEntry, *rlEntry]

func (e *rlEntry) slotBlock() *Block { return e.it.b }
func (e *rlEntry) slotOwner() any    { return e.owner }
func (e *rlEntry) setSlot(b *Block, owner any) {
	e.it.b = b
	e.owner, _ = owner.(*rlEntries)
	e.it.owner = nil
	if e.owner != nil {
		e.it.owner = e
	}
}

// NewReuseLRU returns an empty policy whose counts halve every window
// capacities of accesses.
func NewReuseLRU(window float64, env Env) *ReuseLRU {
	return &ReuseLRU{lifetimes: lifetimes{cap: newBlockCap(env)}, classCounts: newClassCounts(reuseClasses, window)}
}

// reuseClass returns the class of a block with reads reads.
func reuseClass(m *Meta, reads int64) uint8 {
	b := bits.Len64(uint64(max(reads, 1))) - 1
	c := uint8(min(b, reuseReadBuckets-1))
	if frontier(m) {
		c += reuseReadBuckets
	}
	return c
}

// Access learns from the access and moves a resident block to its new key.
func (p *ReuseLRU) Access(b *Block, _ Time) {
	e, resident, reads := p.touch(b)
	if resident || b.Meta.RefCount >= 2 {
		prev := reuseClass(&Meta{}, int64(b.Meta.RefCount-1))
		if resident {
			prev = e.class
		}
		p.reuse[prev]++
		p.sumR++
	}
	c := reuseClass(&b.Meta, reads)
	p.total[c]++
	p.sumT++
	p.decay(p.cap.get())
	if resident {
		e.class = c
		p.place(e)
		p.h.fix(&e.it)
	}
}

// place sets e's key from the current step, E and its class.
func (p *ReuseLRU) place(e *rlEntry) {
	pc, all := p.Prob(int(e.class))
	e.it.last = p.clock
	e.it.key = float64(p.clock) + p.evAge.get(p.cap.get())*pc/all
	e.it.tie = p.clock
}

// reserve allocates the heap slots and entries of n blocks at once; on an
// empty policy only (kv_adaptive moving its residents to this expert).
func (p *lifetimes) reserve(n int) {
	if p.h.len() > 0 || n <= 0 {
		return
	}
	p.h.quad = true
	p.h.items = make([]keyEntry, p.h.root(), p.h.root()+n)
	p.entries.reserve(n)
}

// Admit inserts b with the key of an access now (the access that missed,
// if any, was just seen).
func (p *ReuseLRU) Admit(b *Block, _ Time) {
	e := p.entries.add(b)
	e.it.freq = 1
	e.class = reuseClass(&b.Meta, max(int64(b.Meta.RefCount), 1))
	p.place(e)
	p.push(e)
}

// Forget removes b.
func (p *ReuseLRU) Forget(b *Block) { p.drop(b) }

// lifetimes is the state reuse_lru and reuse_req share: the resident
// blocks' entries in a min-heap of keys (and reuse_req's entries kept for
// a ghost, idle of them), the mean eviction age, the capacity and the
// access clock.
type lifetimes struct {
	h       keyHeap
	entries rlEntries
	idle    int   // entries of blocks no longer resident (gone)
	victim  *item // the item of the last block Victim returned (see Evict)
	evAge   evictionAge
	cap     blockCap
	clock   int64
}

// touch counts an access of b: the clock, and a resident block's reads.
// It returns b's entry (nil if untracked, possibly gone), whether it is
// resident, and its reads so far (the larger of Meta.RefCount and the
// reads counted while resident).
func (l *lifetimes) touch(b *Block) (*rlEntry, bool, int64) {
	l.clock++
	e, ok := l.entries.get(b)
	resident := ok && !e.gone
	reads := int64(b.Meta.RefCount)
	if resident {
		e.it.freq++
		reads = max(reads, int64(e.it.freq))
	}
	return e, resident, reads
}

// push puts a newly admitted entry, keyed, in the heap.
func (l *lifetimes) push(e *rlEntry) {
	if l.h.len() == 0 {
		l.h.quad = true
	}
	l.h.push(&e.it)
	l.cap.observe(l.Len())
}

// Evict removes b and counts its age in the mean eviction age. An entry
// with a ghost stays, gone, until the ghost is read or dies.
//
// The victim Victim just returned is usually the one evicted: its item
// is at hand from Victim, without reading b's slot (a miss on a large
// cache; reuse_lru's entry, freed, still clears it). The heap removes that
// item, not the entry read through it.owner (the same memory): on a large
// cache the entry's line holding owner is often not in the caches (the
// last sift wrote the item's other line), and the removal's sift, a chain
// of misses of its own, then starts without waiting for it.
func (l *lifetimes) Evict(b *Block, _ Time) {
	it := l.resident(l.victim, b)
	if it == nil {
		e, _ := l.entries.get(b)
		if e == nil || e.gone {
			return
		}
		it = &e.it
	}
	e := it.owner.(*rlEntry)
	l.evAge.observe(float64(l.clock-it.last), l.cap.get())
	l.h.remove(it)
	if e.ghost != 0 {
		e.gone = true
		l.idle++
		return
	}
	l.entries.remove(e)
}

// Victim returns the block of the smallest key.
func (l *lifetimes) Victim(Time) (*Block, bool) {
	if it := l.h.min(); it != nil {
		l.victim = it
		return it.b, true
	}
	return nil, false
}

// resident returns it if it is the item of b in the heap (b is resident
// and it is its entry's item), else nil.
func (l *lifetimes) resident(it *item, b *Block) *item {
	if it == nil || it.b != b || !l.h.holds(it) {
		return nil
	}
	return it
}

// Len returns the number of resident blocks.
func (l *lifetimes) Len() int { return l.entries.len() - l.idle }

// drain calls yield with each resident block in the order Victim would
// return them (each the victim once those before it are evicted), having
// forgotten it, and leaves no resident: kv_adaptive moving the residents
// to another expert, which discards this instance. When no two residents
// tie (within kv_adaptive a block is admitted after its own access, so
// their ties are the steps of distinct accesses), sorting the heap's
// slots gives the order its removals would, in one pass instead of a
// removal each; if two do tie, drain does nothing and reports false.
// Entries kept only for a ghost keep their slots, as evicting and
// forgetting the residents one by one leaves them.
func (l *lifetimes) drain(yield func(*Block)) bool {
	order := slices.Clone(l.h.items[min(l.h.root(), len(l.h.items)):])
	slices.SortFunc(order, func(a, b keyEntry) int {
		switch {
		case a.less(&b):
			return -1
		case b.less(&a):
			return 1
		}
		return 0
	})
	for i := 1; i < len(order); i++ {
		if !order[i-1].less(&order[i]) {
			return false // a tie: the heap's shape decides between them
		}
	}
	l.h.items = l.h.items[:0]
	for i := range order {
		e := order[i].it.owner.(*rlEntry)
		e.it.index = -1
		b := e.it.b
		l.entries.remove(e)
		yield(b)
	}
	return true
}

// drop removes b's entry, if it has one (reuse_req frees its ghost
// first).
func (l *lifetimes) drop(b *Block) {
	e, ok := l.entries.get(b)
	if !ok {
		return
	}
	if e.gone {
		l.idle--
	} else {
		l.h.remove(&e.it)
	}
	l.entries.remove(e)
}

// classCounts are the accesses and the labelled reuses of each class of
// reuse_lru or reuse_req, halved every window capacities of accesses.
type classCounts struct {
	reuse, total []float64
	sumR, sumT   float64
	window       float64
	sinceHf      int64 // accesses since the counts last halved
}

func newClassCounts(classes int, window float64) classCounts {
	return classCounts{reuse: make([]float64, classes), total: make([]float64, classes), window: window}
}

// Prob returns the learned probability that an access of class c is
// followed by another (reuse_req: within its horizon), and the same over
// all classes. A class's estimate starts from the overall one (as two
// accesses' worth of evidence), so a class seen rarely ranks as under LRU.
func (k *classCounts) Prob(c int) (class, all float64) {
	all = (k.sumR + 1) / (k.sumT + 2)
	return (k.reuse[c] + 2*all) / (k.total[c] + 2), all
}

// decay halves the counts every window capacities of accesses.
func (k *classCounts) decay(capacity int) {
	k.sinceHf++
	if float64(k.sinceHf) < k.window*float64(capacity) {
		return
	}
	k.sinceHf = 0
	for i := range k.reuse {
		k.reuse[i] /= 2
		k.total[i] /= 2
	}
	k.sumR /= 2
	k.sumT /= 2
}

// evictionAge is the moving mean age of evicted blocks, in accesses, by
// which reuse_lru and reuse_req scale a block's lifetime.
type evictionAge struct{ mean float64 }

// get returns the mean, the capacity before the first eviction.
func (a *evictionAge) get(capacity int) float64 {
	if a.mean == 0 {
		a.mean = float64(capacity)
	}
	return a.mean
}

// observe adds an eviction at age, weighed 1/min(capacity, 1024).
func (a *evictionAge) observe(age float64, capacity int) {
	a.mean += (age - a.mean) / float64(min(capacity, 1024))
	a.mean = max(a.mean, 1)
}
