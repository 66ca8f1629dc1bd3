package plan

import (
	"fmt"

	"github.com/kvtier/kvtier/policy"
)

// Pools: fast blocks tracked in bulk. A caller registering millions of
// fast blocks that no source has seen yet need not hand the planner a
// policy.Block for each (issue 13: registration costs in proportion to
// regions, not blocks, where the blocks are untouched). It opens a Pool
// for blocks that share their metadata (a region) and counts each such
// block into it (AddToPool) instead of tracking it. The planner counts a
// pool's bytes in the fast tier and its tenant's, and, needing victims in
// the pool's bucket, demotes pooled blocks first, oldest pool first, in
// the order the caller's PoolSource gives them: a pooled block was never
// accessed since it was tracked. With LRU that is the order tracking each
// block would give while the pools are older than the blocks the bucket's
// policy holds (TestPoolPlansAsTracked); it differs for a pool opened
// after them: an untouched region registered later loses fast memory
// before an older block read once long ago, where LRU would take the
// older block first. Headroom (only cold blocks leave) passes over pools
// opened less than coldEpochs ago. The planner asks the source for a
// policy.Block only for a pooled block it demotes, and tracks it from
// then on. A block that leaves the pool otherwise (the caller saw it
// accessed, found it slow, changed its metadata) is taken out with
// TakeFromPool before the caller tracks it, if it does.

// PoolSource gives the blocks of a pool to demote.
type PoolSource interface {
	// Next takes the next block of the pool out of it and returns it
	// with a policy.Block of its own (ID and Meta set, not tracked),
	// which the caller keeps stable as for Track. ok is false when the
	// pool has no block left.
	Next() (b *policy.Block, ok bool)
}

// Pool is a set of fast blocks tracked in bulk (see PoolSource).
type Pool struct {
	src       PoolSource
	ten       *tenant
	bucket    uint8
	trackedAt uint32 // epoch+1 in which the pool was opened
	blocks    int
	bytes     int64
	maxSize   int64 // the largest block added
	closed    bool
}

// Blocks returns the number of blocks in the pool.
func (pl *Pool) Blocks() int { return pl.blocks }

// OpenPool opens an empty pool of blocks with metadata m (its tenant and
// bucket: Size is each block's own, given to Add), demoted in the order
// src gives them. Pinned blocks cannot be pooled.
func (p *Planner) OpenPool(src PoolSource, m policy.Meta) (*Pool, error) {
	if m.Pinned {
		return nil, fmt.Errorf("opening a pool of pinned blocks: %w", ErrPinnedPool)
	}
	t := p.tenant(m.Tenant)
	pl := &Pool{src: src, ten: t, bucket: bucketOf(&m), trackedAt: uint32(p.epoch + 1)}
	p.policyFor(t, pl.bucket)
	t.pools[pl.bucket] = append(t.pools[pl.bucket], pl)
	return pl, nil
}

// AddToPool counts one more fast block of size bytes into pl.
func (p *Planner) AddToPool(pl *Pool, size int64) { p.AddRunToPool(pl, 1, size, size) }

// TakeFromPool takes one block of size bytes out of pl (the caller tracks it
// itself from now on, or it left the fast tier).
func (p *Planner) TakeFromPool(pl *Pool, size int64) {
	pl.blocks--
	pl.bytes -= size
	p.used -= size
	pl.ten.used -= size
	pl.ten.fast--
	pl.ten.blocks--
}

// ClosePool takes every block left out of pl and forgets it: the caller
// dropped the blocks or tracks them itself.
func (p *Planner) ClosePool(pl *Pool) {
	if pl.closed {
		return
	}
	p.used -= pl.bytes
	pl.ten.used -= pl.bytes
	pl.ten.fast -= pl.blocks
	pl.ten.blocks -= pl.blocks
	pl.blocks, pl.bytes, pl.closed = 0, 0, true
	pools := pl.ten.pools[pl.bucket]
	for i, q := range pools {
		if q == pl {
			pl.ten.pools[pl.bucket] = append(pools[:i:i], pools[i+1:]...)
			break
		}
	}
}

// takePooled demotes pooled blocks of t's bucket bk, oldest pool first,
// until bytes are freed or it runs out of pooled blocks (first), of budget
// (spent) or of blocks the guard lets go (stop). It returns the bytes
// freed.
func (p *Planner) takePooled(t *tenant, bk int, bytes int64, r Reason, bud *budget,
	now policy.Time, pl *Plan, guard float64) (freed int64, spent, stop bool) {
	for _, pool := range t.pools[bk] {
		if pool.blocks == 0 {
			continue
		}
		if guard == coldOnly && int64(p.epoch)-int64(pool.trackedAt) < coldEpochs {
			continue // not cold yet; blocks tracked before it may be
		}
		if guard != coldOnly && p.cfg.promoteMin() > guard {
			return freed, false, true
		}
		for freed < bytes && pool.blocks > 0 {
			// The budget is checked before a block leaves the pool
			// (taken out, it would be tracked as just accessed), with
			// the largest size: at worst a region's short last block
			// waits for the next plan.
			if !bud.fits(pool.maxSize, 1) {
				return freed, true, false
			}
			b, ok := pool.src.Next()
			if !ok {
				break
			}
			p.TakeFromPool(pool, b.Meta.Size)
			demoted, spent := p.demotePooled(b, pool, r, bud, now, pl)
			if spent {
				return freed, true, false
			}
			if demoted {
				freed += b.Meta.Size
			}
		}
		if freed >= bytes {
			break
		}
	}
	return freed, false, false
}

// demotePooled tracks b, just taken out of pool, and demotes it if the
// budget allows (takePooled checked it for the pool's largest block);
// else (spent) b stays tracked fast, admitted to its policy. A block whose
// ID is tracked already (the caller's error) is left alone. A policy for
// which admitting a block and evicting it at once changes nothing
// (policy.Traceless) never sees the block: at 10M blocks, a plan demoting
// 100K pooled blocks spends a fifth of its time admitting and evicting
// them.
func (p *Planner) demotePooled(b *policy.Block, pool *Pool, r Reason, bud *budget,
	now policy.Time, pl *Plan) (demoted, spent bool) {
	t := pool.ten
	if t.id != b.Meta.Tenant {
		t = p.tenant(b.Meta.Tenant)
	}
	_, quiet := p.policyFor(t, bucketOf(&b.Meta)).(policy.Traceless)
	e, slot, err := p.track(b, t, true, !quiet, now)
	if err != nil {
		return false, false
	}
	e.trackedAt = pool.trackedAt
	size := b.Meta.Size
	if !bud.fits(size, 1) {
		if quiet && !b.Meta.Pinned {
			p.admit(e, slot, now) // as track would have
		}
		return false, true
	}
	bud.take(size, 1)
	if e.admitted {
		p.pol(e).Evict(b, now)
	}
	e.admitted = false
	e.pending = pendDemote
	p.outgoing += size
	p.tenOf(e).outgoing += size
	pl.Demote = append(pl.Demote, Move{Block: b, Reason: r})
	return true, false
}

// takeBucket frees up to bytes of t's bucket bk: pooled blocks first,
// then victims of the bucket's policy (take).
func (p *Planner) takeBucket(t *tenant, bk int, bytes int64, r Reason, bud *budget,
	now policy.Time, pl *Plan, guard float64) (freed int64, spent bool) {
	pol := t.pols[bk]
	if pol == nil {
		return 0, false
	}
	freed, spent, stop := p.takePooled(t, bk, bytes, r, bud, now, pl, guard)
	if spent || stop || freed >= bytes {
		return freed, spent
	}
	f, spent := p.take(pol, bytes-freed, r, bud, now, pl, guard)
	return freed + f, spent
}
