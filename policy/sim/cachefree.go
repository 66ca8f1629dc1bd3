package sim

// The cache engine's prefetch, free and end of run (cache.go has the
// access path).

// prefetch promotes the blocks whose keys follow x's, when a lower tier
// holds them. Their transfers are asynchronous: bytes count, latency not.
func (e *engine) prefetch(x *blk, now int64) {
	key := e.keys[x.b.ID]
	for d := 1; d <= e.cfg.Prefetch; d++ {
		id, ok := e.keyIdx[key+uint64(d)]
		if !ok {
			continue
		}
		y := &e.blocks[id]
		if y.tier <= 0 {
			continue
		}
		from := y.tier
		e.unlink(y)
		e.res.BytesPrefetch += y.b.Meta.Size
		e.promote(y, now, &e.res.BytesPrefetch)
		if e.moves != nil {
			e.logMove(now, y, from, MovePrefetch)
		}
		if y.tier == 0 {
			y.prefetched = true
		}
	}
}

// free drops a freed block from every tier and the policy.
func (e *engine) free(x *blk) {
	if e.moves != nil && x.tier >= 0 {
		from := x.tier
		x.tier = -1
		e.logMove(e.now, x, from, MoveFree)
		x.tier = from
	}
	if x.tier > 0 {
		e.unlink(x)
	}
	if x.tier == 0 {
		e.used -= x.b.Meta.Size
		if x.b.Meta.Pinned {
			e.pinned -= x.b.Meta.Size
		}
	}
	e.pol.Forget(&x.b)
	if x.prefetched {
		x.prefetched = false
		e.res.PrefetchWasted++
	}
	x.tier, x.evictedAt = -1, -1
}

// finish computes the derived measures.
func (e *engine) finish() {
	for i := range e.blocks {
		if e.blocks[i].prefetched {
			e.res.PrefetchWasted++
		}
	}
	finishResult(&e.res, &e.lat, &e.tenants, e.util)
	e.res.PeakBytes = e.peak
}

func finishResult(r *Result, lat *hist, t *tenantHits, util float64) {
	if r.Accesses > 0 {
		r.FastHitRatio = float64(r.Hits[0]) / float64(r.Accesses)
		r.Utilisation = util / float64(r.Accesses)
	}
	if r.Evictions > 0 {
		r.RepromotionRate = float64(r.Repromotions) / float64(r.Evictions)
	}
	r.MeanLatencyMs = lat.mean()
	r.P99LatencyMs = lat.quantile(0.99)
	r.Fairness, r.Tenants = t.fairness()
}
