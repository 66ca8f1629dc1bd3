package lab

import (
	"errors"
	"fmt"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// Errors of the lab model, tested with errors.Is.
var (
	// ErrBadSpec is returned for a policy spec the lab model does not know.
	ErrBadSpec = errors.New("bad lab policy spec")
	// ErrTooBig is returned when a page does not fit into an empty tier
	// (the lab stops with an error there too).
	ErrTooBig = errors.New("page larger than a tier")
)

// tier is one tier's residency: pages in the order they entered (the
// order the lab's dict keeps, which breaks the policies' ties), the bytes
// each holds (0: absent), used and peak bytes.
type tier struct {
	cfg        sim.Tier
	order      []int
	bytes      []int64
	used, peak int64
}

func (t *tier) has(page int) bool { return t.bytes[page] > 0 }

// add is MemoryTier.add_page: nothing happens when the page is there
// (and add reports false).
func (t *tier) add(page int, size int64) bool {
	if t.has(page) {
		return false
	}
	t.order = append(t.order, page)
	t.bytes[page] = size
	t.used += size
	t.peak = max(t.peak, t.used)
	return true
}

func (t *tier) remove(page int) int64 {
	for i, p := range t.order {
		if p == page {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
	size := t.bytes[page]
	t.bytes[page] = 0
	t.used -= size
	return size
}

// engine replays a lab trace as the lab's SimulationEngine does (see
// doc.go for the model, prefetch.go for its prefetch hook).
type engine struct {
	model  Model
	tiers  []*tier
	sizes  []int64
	decode float64
	pol    chooser
	step   int
	err    error
	res    Result
	pf     prefetchState
	moves  moveLog // Config.Moves; off when its log is nil
}

func newEngine(h sim.Hierarchy, lt trace.LabTrace, q sim.Quant, pol chooser, m Model) *engine {
	e := &engine{model: m, sizes: lt.Sizes, decode: q.DecodeMs(), pol: pol}
	e.pf.pending = make([]bool, len(lt.Sizes))
	for _, c := range h.Tiers {
		e.tiers = append(e.tiers, &tier{cfg: c, bytes: make([]int64, len(lt.Sizes))})
	}
	e.res.Hits = make([]int64, len(h.Tiers))
	return e
}

// put adds page to tier t and tells the policy when it was not there.
func (e *engine) put(t, page int, size int64) {
	if e.tiers[t].add(page, size) {
		e.pol.entered(page, t, e.step)
	}
}

// take removes page from tier t, tells the policy and returns its bytes.
func (e *engine) take(t, page int) int64 {
	size := e.tiers[t].remove(page)
	e.pol.left(page, t, e.step)
	return size
}

// lookup returns the fastest tier holding page, or -1.
func (e *engine) lookup(page int) int {
	for i, t := range e.tiers {
		if t.has(page) {
			return i
		}
	}
	return -1
}

// access serves one step: a fast-tier hit costs tier 0's read latency; a
// page in a slower tier is promoted; a page in no tier is first inserted
// into the slowest tier (free) and then promoted from there.
func (e *engine) access(page int) {
	in := e.lookup(page)
	e.pol.access(page, e.step)
	e.res.Accesses++
	switch {
	case in < 0 && e.model.ColdDirect:
		e.res.Misses++
		e.res.ColdMisses++
		e.promote(page, -1, false)
	case in < 0:
		e.res.Misses++
		e.res.ColdMisses++
		e.insertCold(page)
		e.promote(page, e.lookup(page), false)
	case in > 0:
		e.res.Misses++
		e.res.Hits[in]++
		e.promote(page, in, false)
	default:
		e.res.Hits[0]++
		t0 := e.tiers[0].cfg
		lat := t0.ReadMs
		if e.model.HitBandwidth {
			lat += float64(e.sizes[page]) / t0.Bandwidth
		}
		e.res.latency += float64(lat + e.decode)
	}
	e.afterAccess(page)
}

func (e *engine) insertCold(page int) {
	last := len(e.tiers) - 1
	if e.tiers[last].has(page) {
		return
	}
	e.makeRoom(last, page)
	e.put(last, page, e.sizes[page])
	e.move(-1, last, page, e.sizes[page], sim.MoveMiss)
	e.pol.inserted(page, e.step)
}

// promote moves page from tier src (-1: none) into tier 0, on demand or
// as a prefetch. Room is made first, while the page still sits in src,
// so a cascade of demotions may pick the page itself out of src; it then
// keeps a stale copy lower down, as in the lab.
func (e *engine) promote(page, src int, prefetch bool) {
	if e.tiers[0].has(page) {
		return
	}
	if src >= 0 && e.model.LRUBelow {
		e.take(src, page)
	}
	e.makeRoom(0, page)
	if src >= 0 && e.tiers[src].has(page) {
		e.take(src, page)
	}
	e.put(0, page, e.sizes[page])
	e.transfer(src, 0, page, e.sizes[page], prefetch)
	reason := sim.MoveMiss
	if prefetch {
		reason = sim.MovePrefetch
	}
	e.move(src, 0, page, e.sizes[page], reason)
	e.pol.inserted(page, e.step)
}

// makeRoom evicts the policy's victims from tier t until page fits.
func (e *engine) makeRoom(t int, page int) {
	tr := e.tiers[t]
	for e.err == nil && tr.used+e.sizes[page] > tr.cfg.Capacity {
		if len(tr.order) == 0 {
			e.err = fmt.Errorf("%w: page %d (%d bytes) into %s (%d bytes)",
				ErrTooBig, page, e.sizes[page], tr.cfg.Name, tr.cfg.Capacity)
			return
		}
		v := 0
		if t == 0 || !e.model.LRUBelow {
			v = e.pol.victim(t, tr.order, e.step)
		}
		e.evict(t, tr.order[v])
	}
}

// evict takes page out of tier t and demotes it to tier t+1, making room
// there first; out of the last tier it is dropped.
func (e *engine) evict(t, page int) {
	size := e.take(t, page)
	e.res.Evictions++
	if t == 0 || !e.model.LRUBelow {
		e.pol.evicted(page, e.step)
	}
	if t == 0 {
		e.leftFast(page)
	}
	if t+1 >= len(e.tiers) {
		e.move(t, -1, page, size, e.evictReason(t))
		return
	}
	e.makeRoom(t+1, page)
	e.put(t+1, page, size)
	e.transfer(t, t+1, page, size, false)
	e.move(t, t+1, page, size, e.evictReason(t))
}

// transfer charges a move into dst: the source's read latency, dst's
// write latency, the page's bytes at the smaller bandwidth and the decode
// penalty, summed in the lab's order. Without a source (Model.ColdDirect
// only: the lab always promotes from a tier) it charges sim's cold miss:
// 4x dst's read latency and the bytes at half dst's bandwidth, no write.
// The bytes count as prefetch bytes when prefetch is set, else as demand.
func (e *engine) transfer(src, dst, page int, size int64, prefetch bool) {
	d := e.tiers[dst].cfg
	read, write, bw := float64(4*d.ReadMs), 0.0, d.Bandwidth/2
	if src >= 0 {
		s := e.tiers[src].cfg
		read, write, bw = s.ReadMs, d.WriteMs, min(s.Bandwidth, d.Bandwidth)
	}
	ms := float64(read+write) + float64(e.sizes[page])/max(bw, 1.0)
	e.res.latency += float64(ms + e.decode)
	e.res.BytesMoved += size
	if prefetch {
		e.res.PrefetchBytes += size
	} else {
		e.res.DemandBytes += size
	}
}
