package sim

import (
	"fmt"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// cengine is the blocks-mode engine over a compact policy: engine.record,
// access, promote and free restricted to one tier of unit blocks, where
// a hit costs nothing and a miss the quantisation's decode time. Its
// results are equal, field for field, to the engine's with the policy
// package's policy (TestCompactMatchesEngine).
type cengine struct {
	s        store
	pol      compact
	capacity int64
	capF     float64
	used     int64 // resident blocks, pinned included
	pinned   int64 // resident pinned blocks
	horizon  int64
	missMs   float64
	res      Result
	hits     int64
	lat      hist
	tenants  tenantHits
	util     float64
	name     string // policy spec and trace, for errors
	err      error  // a panic of the policy: the engine stopped
	touched  uint64 // batch.replay's reads ahead (see prefetch)
}

// newCEngine returns a compact engine for cfg, a blocks-mode setting, or
// false when cfg's policy has no compact form.
func newCEngine(cfg *Config) (*cengine, bool, error) {
	if cfg.Mode != ModeBlocks { // Validate refuses prefetch outside cache mode
		return nil, false, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, false, err
	}
	env := cfg.env()
	pol, err := policy.New(cfg.Policy, env)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	e := &cengine{capacity: int64(cfg.CapacityBlocks), capF: float64(cfg.CapacityBlocks), horizon: cfg.horizon()}
	h := cfg.hierarchy()
	e.missMs = h.coldMs(0, 1, cfg.Quant) // a miss: cold, and no tier below to demote to
	var ok bool
	if e.pol, ok = newCompact(pol, &e.s, env); !ok {
		return nil, false, nil
	}
	return e, true, nil
}

// record replays one record of block id.
func (e *cengine) record(id uint32, op trace.Op, pinned bool, tenant uint32) {
	if int(id) >= len(e.s.b) {
		e.grow(int(id) + 1)
	}
	x := &e.s.b[id]
	if x.flags&fSeen == 0 {
		*x = cblk{prev: -1, next: -1, flags: fSeen}
	}
	if pinned != (x.flags&fPinned != 0) {
		e.setPinned(int32(id), x, pinned)
	}
	switch op {
	case trace.OpAccess:
		e.access(int32(id), x, tenant)
	case trace.OpFree:
		e.free(int32(id), x)
	}
}

// grow makes room for n blocks, doubling the slice when it is full:
// append's smaller steps for large slices would copy the blocks and touch
// fresh memory several times more.
func (e *cengine) grow(n int) {
	if n > cap(e.s.b) {
		b := make([]cblk, len(e.s.b), max(n, 2*cap(e.s.b), 1024))
		copy(b, e.s.b)
		e.s.b = b
	}
	e.s.b = e.s.b[:n]
}

// setPinned records a change of the block's pinned flag: a resident block
// pinned leaves its policy, one unpinned is handed back.
func (e *cengine) setPinned(i int32, x *cblk, pinned bool) {
	x.flags ^= fPinned
	if x.flags&fResident == 0 {
		return
	}
	if pinned {
		e.pol.forget(i)
		e.pinned++
		return
	}
	e.pinned--
	e.pol.admit(i)
}

// access serves one access.
func (e *cengine) access(i int32, x *cblk, tenant uint32) {
	now := e.res.Accesses
	e.res.Accesses++
	if at := x.evicted; at != 0 {
		x.evicted = 0
		if now-int64(at-1) <= e.horizon {
			e.res.Repromotions++
		}
	}
	hit := x.flags&fResident != 0
	if x.flags&fPinned == 0 {
		e.pol.access(i)
	}
	lat := 0.0
	if hit {
		e.hits++
	} else {
		e.res.Misses++
		e.res.BytesDemand++
		lat = e.missMs
		e.promote(i, now)
	}
	e.lat.add(lat)
	e.tenants.add(tenant, hit)
	e.util += float64(e.used) / e.capF
}

// promote admits block i, evicting victims; a block that cannot fit stays
// out, as the engine's insertLower below the last tier leaves it.
func (e *cengine) promote(i int32, now int64) {
	if 1 > e.capacity-e.pinned {
		return
	}
	b := e.s.b
	for e.used+1 > e.capacity {
		v, ok := e.pol.victim()
		if !ok {
			return
		}
		e.pol.evict(v)
		e.used--
		e.res.Evictions++
		b[v].evicted = uint32(now) + 1
		b[v].flags &^= fResident
	}
	x := &b[i]
	x.flags |= fResident
	e.used++
	if x.flags&fPinned != 0 {
		e.pinned++
	} else {
		e.pol.admit(i)
	}
}

// free drops a freed block from the tier and the policy.
func (e *cengine) free(i int32, x *cblk) {
	if x.flags&fResident != 0 {
		e.used--
		if x.flags&fPinned != 0 {
			e.pinned--
		}
	}
	e.pol.forget(i)
	x.flags &^= fResident
	x.evicted = 0
}

// replay feeds a batch's records to e unless e stopped, and stops e on a
// panic of its policy, as Run reports one.
func (e *cengine) replay(b *batch) {
	if e.err != nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			e.err = fmt.Errorf("%w: policy %s: %v", ErrPolicyPanic, e.name, p)
		}
	}()
	b.replay(e)
}

// finish computes the derived measures.
func (e *cengine) finish() Result {
	e.res.Hits = []int64{e.hits}
	finishResult(&e.res, &e.lat, &e.tenants, e.util)
	return e.res
}
