package sim

import (
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// blk is the simulator's state of one block.
type blk struct {
	b          policy.Block
	tier       int8   // -1: in no tier
	seen       bool   // Meta.Size set
	prefetched bool   // promoted by prefetch and not accessed since
	prev, next int32  // links in its lower tier's LRU list
	meta       uint32 // Trace.metas index of b.Meta, noMeta when unknown
	evictedAt  int64  // access index of its last fast-tier eviction, -1 none
}

// reaccess clears x's eviction mark on an access at now and returns 1 when
// the access comes within horizon accesses of the eviction (a
// repromotion), else 0.
func (x *blk) reaccess(now, horizon int64) int64 {
	at := x.evictedAt
	x.evictedAt = -1
	if at >= 0 && now-at <= horizon {
		return 1
	}
	return 0
}

// blockBytes is the footprint of a block whose trace gives size fp16 bytes
// (DefaultBlockBytes when the trace gives none) in the configured format.
func (c *Config) blockBytes(size int64) int64 {
	if size <= 0 {
		size = DefaultBlockBytes
	}
	return c.Quant.Scale(size)
}

// lowerTier is a tier below the fast one: LRU by demotion or access time.
type lowerTier struct {
	head, tail int32 // most and least recent, -1 when empty
	used       int64
}

// engine is the state shared by the cache and blocks modes.
type engine struct {
	cfg     *Config
	h       Hierarchy
	blocks  []blk
	lower   []lowerTier // index 0 unused
	pol     policy.Policy
	used    int64 // tier-0 bytes, pinned included
	pinned  int64 // tier-0 bytes of pinned blocks
	res     Result
	lat     hist
	tenants tenantHits
	util    float64
	keyIdx  map[uint64]uint32 // for prefetch
	keys    []uint64
	unit    bool    // ModeBlocks: every block has size 1
	peak    []int64 // most bytes each tier held (cache mode), nil in blocks mode
	moves   MoveLog // nil: no move log
	trace   string  // the trace, named in move log lines
	now     int64   // the access being served, when moves is set
}

func newEngine(cfg *Config, t *Trace, pol policy.Policy) *engine {
	h := cfg.hierarchy()
	e := &engine{cfg: cfg, h: h, blocks: make([]blk, t.Blocks()), lower: make([]lowerTier, len(h.Tiers)),
		unit: cfg.Mode == ModeBlocks, keys: t.keys}
	// Blocks are set up at their first record (see record): a large trace
	// has about as many blocks as accesses, so a pass over all of them
	// here would cost as much as a good part of the replay.
	for i := range e.lower {
		e.lower[i] = lowerTier{head: -1, tail: -1}
	}
	e.res.Hits = make([]int64, len(h.Tiers))
	if !e.unit {
		e.peak = make([]int64, len(h.Tiers))
	}
	if cfg.Moves != nil {
		e.moves, e.trace = cfg.Moves, t.Name
	}
	if cfg.Prefetch > 0 {
		e.keyIdx = make(map[uint64]uint32, len(t.keys))
		for i, k := range t.keys {
			e.keyIdx[k] = uint32(i)
		}
	}
	e.pol = pol
	return e
}

// setMeta copies a record's metadata, whose index in the trace's metas is
// mi; the size is fixed at first sight. Nothing changes when the block
// already holds that metadata.
func (e *engine) setMeta(x *blk, mi uint32, rm *policy.Meta) {
	if mi == x.meta && mi != noMeta {
		return
	}
	x.meta = mi
	m := *rm
	if !x.seen {
		x.seen = true
		switch {
		case e.unit:
			m.Size = 1
		default:
			m.Size = e.cfg.blockBytes(m.Size)
		}
	} else {
		m.Size = x.b.Meta.Size
	}
	if m.Pinned != x.b.Meta.Pinned && x.tier == 0 {
		// Pinning takes a resident block out of the policy's candidates;
		// unpinning hands it back.
		if m.Pinned {
			e.pol.Forget(&x.b)
			e.pinned += m.Size
		} else {
			e.pinned -= m.Size
		}
		x.b.Meta = m
		if !m.Pinned {
			e.pol.Admit(&x.b, 0)
		}
		return
	}
	x.b.Meta = m
}

// run replays the trace in cache or blocks mode; next is the trace's next
// uses, or nil when the policy does not read Block.Next.
func (e *engine) run(t *Trace, next []uint32) error {
	var step int64
	if t.kept() {
		// The replay loop of a trace in memory, without a call per record.
		for i, c := range t.code {
			mi := c & metaMask
			id := t.dense[i]
			e.record(trace.Op(c>>opShift), id, &e.blocks[id], nextAt(next, i), mi, &t.metas[mi], &step)
		}
	} else if err := t.replay(next, func(op trace.Op, id, next, mi uint32, m *policy.Meta) {
		e.record(op, id, &e.blocks[id], next, mi, m, &step)
	}); err != nil {
		return err
	}
	e.finish()
	return nil
}

// record replays one record of block id, x; step counts the accesses.
func (e *engine) record(op trace.Op, id uint32, x *blk, next, mi uint32, m *policy.Meta, step *int64) {
	if !x.seen {
		// First sight: a block in no tier. Until now x was zero, which
		// prefetch (the only reader of blocks not yet seen) takes as
		// not in a lower tier.
		*x = blk{b: policy.Block{ID: uint64(id)}, tier: -1, prev: -1, next: -1, meta: noMeta, evictedAt: -1}
	}
	e.setMeta(x, mi, m)
	switch op {
	case trace.OpAccess:
		if next == never {
			x.b.Next = policy.Never
		} else {
			x.b.Next = int64(next)
		}
		e.access(x, *step)
		*step++
	case trace.OpFree:
		e.free(x)
	}
}

// access serves one access at step now.
func (e *engine) access(x *blk, now int64) {
	if e.moves != nil {
		e.now = now // a free logs the step of the last access
	}
	e.res.Accesses++
	e.res.Repromotions += x.reaccess(now, e.cfg.horizon())
	size := x.b.Meta.Size
	var lat float64
	hit := x.tier == 0
	if !x.b.Meta.Pinned {
		e.pol.Access(&x.b, now)
	}
	if hit {
		e.res.Hits[0]++
		lat = e.h.readMs(0, size)
		if x.prefetched {
			x.prefetched = false
			e.res.PrefetchUseful++
		}
	} else {
		from := x.tier
		if x.tier > 0 {
			e.res.Hits[x.tier]++
			lat = e.h.transferMs(int(x.tier), 0, size, e.cfg.Quant)
			e.unlink(x)
		} else {
			e.res.Misses++
			lat = e.h.coldMs(0, size, e.cfg.Quant)
		}
		e.res.BytesDemand += size
		lat += e.promote(x, now, &e.res.BytesDemand)
		if e.moves != nil {
			e.logMove(now, x, from, MoveMiss)
		}
		if e.cfg.Prefetch > 0 {
			e.prefetch(x, now)
		}
	}
	e.lat.add(lat)
	e.tenants.add(x.b.Meta.Tenant, hit)
	e.util += float64(e.used) / float64(e.h.Tiers[0].Capacity)
}

// promote admits x to tier 0 and demotes the victims, returning the
// latency of the demotions and adding their bytes to bytes. A block that
// cannot fit goes to the first lower tier instead.
func (e *engine) promote(x *blk, now int64, bytes *int64) float64 {
	size, capacity := x.b.Meta.Size, e.h.Tiers[0].Capacity
	if size > capacity-e.pinned {
		return e.insertLower(x, 1, bytes)
	}
	var lat float64
	for e.used+size > capacity {
		v, ok := e.pol.Victim(now)
		if !ok {
			// Only possible with a policy that lost track of a
			// resident: serve the block from below.
			return lat + e.insertLower(x, 1, bytes)
		}
		vb := &e.blocks[v.ID]
		e.pol.Evict(v, now)
		e.used -= v.Meta.Size
		lat += e.demote(vb, now, bytes)
	}
	x.tier = 0
	e.used += size
	if e.peak != nil && e.used > e.peak[0] {
		e.peak[0] = e.used
	}
	if x.b.Meta.Pinned {
		e.pinned += size
	} else {
		e.pol.Admit(&x.b, now)
	}
	return lat
}

// demote moves a block just evicted from tier 0 to tier 1, cascading.
func (e *engine) demote(v *blk, now int64, bytes *int64) float64 {
	e.res.Evictions++
	v.evictedAt = now
	if v.prefetched {
		v.prefetched = false
		e.res.PrefetchWasted++
	}
	v.tier = -1
	if len(e.h.Tiers) == 1 {
		if e.moves != nil {
			e.logMove(now, v, 0, MoveEvict)
		}
		return 0
	}
	*bytes += v.b.Meta.Size
	lat := e.h.transferMs(0, 1, v.b.Meta.Size, e.cfg.Quant)
	if e.moves != nil {
		// Logged before the cascade it may start, as it happens.
		v.tier = 1
		e.logMove(now, v, 0, MoveEvict)
		v.tier = -1
	}
	return lat + e.insertLower(v, 1, bytes)
}

// insertLower puts x at the front of lower tier k and pushes the least
// recent blocks of every overfull tier one tier down; blocks falling off
// the last tier are dropped. It returns the latency of the cascade.
func (e *engine) insertLower(x *blk, k int, bytes *int64) float64 {
	if k >= len(e.h.Tiers) {
		x.tier = -1
		return 0
	}
	e.link(x, k)
	var lat float64
	for ; k < len(e.h.Tiers); k++ {
		lt := &e.lower[k]
		for lt.used > e.h.Tiers[k].Capacity && lt.tail >= 0 {
			v := &e.blocks[lt.tail]
			e.unlink(v)
			if k+1 < len(e.h.Tiers) {
				*bytes += v.b.Meta.Size
				lat += e.h.transferMs(k, k+1, v.b.Meta.Size, e.cfg.Quant)
				e.link(v, k+1)
			}
			if e.moves != nil {
				e.logMove(e.now, v, int8(k), cascadeReason(k+1 < len(e.h.Tiers)))
			}
		}
		if e.peak != nil && lt.used > e.peak[k] {
			e.peak[k] = lt.used
		}
	}
	return lat
}

func (e *engine) link(x *blk, k int) {
	lt := &e.lower[k]
	id := int32(x.b.ID)
	x.tier, x.prev, x.next = int8(k), -1, lt.head
	if lt.head >= 0 {
		e.blocks[lt.head].prev = id
	} else {
		lt.tail = id
	}
	lt.head = id
	lt.used += x.b.Meta.Size
}

func (e *engine) unlink(x *blk) {
	lt := &e.lower[x.tier]
	if x.prev >= 0 {
		e.blocks[x.prev].next = x.next
	} else {
		lt.head = x.next
	}
	if x.next >= 0 {
		e.blocks[x.next].prev = x.prev
	} else {
		lt.tail = x.prev
	}
	lt.used -= x.b.Meta.Size
	x.prev, x.next, x.tier = -1, -1, -1
}
