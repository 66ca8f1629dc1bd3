package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/plan"
)

// regretEpochs is the regret horizon in epochs: a block demoted and
// accessed again within it is a regret event.
const regretEpochs = 32

// loop runs an epoch every cfg.Epoch until ctx is done, and tells the
// watchdog (watchdog.go) when an epoch runs.
func (d *Daemon) loop(ctx context.Context) {
	epoch := d.Config().Epoch
	timer := time.NewTimer(epoch)
	defer timer.Stop()
	d.beat.idle(epoch)
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			start := time.Now()
			d.beat.busy(start)
			d.runEpoch(ctx)
			epoch = d.Config().Epoch
			timer.Reset(untilNext(time.Since(start), epoch))
			d.beat.idle(epoch)
		}
	}
}

// untilNext is the wait before the next epoch, after one that took took. Epochs start every epoch,
// counted from this one's start, so the time the moves take does not
// stretch them (DAMON's aggregations and the planner's decay assume one
// epoch between two); an epoch that ran over its length is followed after
// a tenth of an epoch.
func untilNext(took, epoch time.Duration) time.Duration {
	return max(epoch-took, epoch/10)
}

// plannedMove ties a planner move to the mover's move and its region.
type plannedMove struct {
	r       *region
	index   int
	promote bool
	reason  plan.Reason
}

// runEpoch is one epoch: drain, decide, move (unlocked, under a deadline),
// feed the outcomes back, publish metrics and events.
func (d *Daemon) runEpoch(ctx context.Context) {
	start := time.Now()
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.reapLocked()
	now := d.now()
	d.reconcileLocked(now)
	d.sweepLocked(now)
	hits := d.drainLocked(now)
	decStart := time.Now()
	d.moveCapLocked()
	d.nodeRoomLocked()
	d.holdLocked()
	pl, moves, mplan := d.decideLocked(now)
	decision := time.Since(decStart)
	moving, mover, deadline := d.moving, d.mover, d.cfg.MoveDeadline()

	var rep *numa.Report
	if moving && len(mplan) > 0 {
		for _, m := range moves {
			m.r.inMove = true
		}
		d.mu.Unlock()
		mctx, cancel := context.WithTimeout(ctx, deadline)
		rep = mover.Run(mctx, mplan)
		cut := errors.Is(mctx.Err(), context.DeadlineExceeded)
		if cut {
			d.metrics.deadlineMisses.Inc()
		}
		cancel()
		d.mu.Lock()
		d.speed.observe(rep, cut)
		d.room.moved(rep)
		d.moverDone(moves)
	}
	defer d.mu.Unlock()
	d.feedback(moves, rep, d.now())
	d.backoffLocked(moves, rep)
	for _, ev := range pl.Events {
		d.crossTenantEvent(ev)
	}
	d.finishEpoch(start, decision, pl, rep, hits)
	d.planner.Recycle(pl) // moves and mplan hold copies of what they need
	d.recycleMoves(moves, mplan)
}

// moverDone ends the mover's use of the regions of moves and closes the
// process handles of those dropped while it ran.
func (d *Daemon) moverDone(moves []plannedMove) {
	for _, m := range moves {
		m.r.inMove = false
		if m.r.closeProc {
			m.r.closeProc = false
			m.r.proc.Close()
		}
	}
}

// tenantHits counts sampled accesses per tenant and how many hit the
// fast tier, for the fairness index.
type tenantHits map[string]*[2]uint64

// drainLocked drains every sampler and feeds the counts to the planner.
// The counts go to d.drainBuf, which is reused from epoch to epoch.
func (d *Daemon) drainLocked(now policy.Time) tenantHits {
	hits := tenantHits{}
	for _, s := range d.samplers {
		if s.s == nil {
			continue
		}
		buf, err := s.s.Drain(d.drainBuf[:0])
		d.drainBuf = buf
		if err != nil {
			d.log.Named("sampler").Warn("drain failed", "sampler", s.name, "error", err)
			d.metrics.epochErrors.Inc()
			continue
		}
		d.feedCountsLocked(s, buf, now, hits)
		d.samplerStats(s)
	}
	return hits
}

// feedCountsLocked feeds one sampler's drained counts to the planner.
func (d *Daemon) feedCountsLocked(s *samplerState, counts []bpf.Count, now policy.Time, hits tenantHits) {
	for _, c := range counts {
		d.accessLocked(uint64(c.Region), int(c.Block), s.observation(c), now, hits)
	}
}

// accessLocked records the accesses o reports of block index of region rid.
func (d *Daemon) accessLocked(rid uint64, index int, o plan.Observation, now policy.Time, hits tenantHits) bool {
	r, ok := d.regions[rid]
	if !ok || index < 0 || index >= r.blocks.len() || o.Count == 0 {
		return false
	}
	count := uint64(o.Count)
	id := r.idOf(index)
	if _, err := d.blockLocked(r, index, now); err == nil {
		_ = d.planner.Observe(id, o, now)
	}
	r.heat.add(index, float32(count))
	r.accesses += count
	if d.rec != nil {
		d.rec.access(r, index, count, now)
	}
	if hits != nil {
		h := hits[r.tenant]
		if h == nil {
			h = new([2]uint64)
			hits[r.tenant] = h
		}
		h[0] += count
		if r.fast.get(index) {
			h[1] += count
		}
	}
	if r.takeDemoted(index, now, d.horizon()) {
		d.metrics.regrets.Inc()
		b := uint64(index)
		d.events.publish(api.Event{Type: api.EventRegret, Region: r.id, PID: r.pid(), Tenant: r.tenant,
			Block: &b, Reason: "demoted block accessed again within the regret horizon"})
		d.regretWin = append(d.regretWin, 1)
	}
	return true
}

// horizon is the regret horizon in policy time.
func (d *Daemon) horizon() policy.Time { return policy.Time(d.cfg.Epoch) * regretEpochs }

// samplerStats adds a sampler's new events and drops to the metrics.
func (d *Daemon) samplerStats(s *samplerState) {
	st, err := s.s.Stats()
	if err != nil {
		return
	}
	if st.Matched >= s.last.Matched {
		d.metrics.samplerEvents.WithLabelValues(s.name).Add(float64(st.Matched - s.last.Matched))
	}
	if st.Drops >= s.last.Drops {
		d.metrics.samplerDrops.WithLabelValues(s.name).Add(float64(st.Drops - s.last.Drops))
	}
	if st.KernelCPUSeconds > s.last.KernelCPUSeconds {
		d.metrics.samplerKernelCPU.WithLabelValues(s.name).Add(st.KernelCPUSeconds - s.last.KernelCPUSeconds)
	}
	s.last = st
}

// feedback reports every planned move's outcome to the planner and
// updates the regions' tiers.
func (d *Daemon) feedback(moves []plannedMove, rep *numa.Report, now policy.Time) {
	type key struct {
		region  uint64
		promote bool
	}
	agg := map[key]*api.Event{}
	failed := map[string]*moveFailure{}
	for i, m := range moves {
		ok := false
		var out numa.Outcome
		if rep != nil && i < len(rep.Outcomes) {
			out = rep.Outcomes[i]
			ok = out.Err == nil && out.Failed == 0 && out.Skipped == 0 && out.Pages > 0
		}
		if !ok {
			d.metrics.plannedDeferred.Inc()
		}
		for name, n := range out.Errnos {
			d.metrics.migErrors.WithLabelValues(name).Add(float64(n))
		}
		d.moveFailed(failed, m, out)
		id := m.r.idOf(m.index)
		if err := d.planner.Done(id, m.promote, ok, now); err != nil {
			d.doneFailed(m, err)
			continue
		}
		if !ok {
			continue
		}
		m.r.fast.set(m.index, m.promote)
		dir := dirDemote
		if m.promote {
			dir = dirPromote
			m.r.clearDemoted(m.index)
		} else {
			m.r.markDemoted(m.index, now)
			d.regretWin = append(d.regretWin, 0)
		}
		bytes := int64(out.Moved) * int64(numa.PageSize)
		d.metrics.migPages.WithLabelValues(dir).Add(float64(out.Moved))
		d.metrics.migBytes.WithLabelValues(dir).Add(float64(bytes))
		k := key{m.r.id, m.promote}
		ev := agg[k]
		if ev == nil {
			ev = &api.Event{Type: api.EventMigration, Region: m.r.id, PID: m.r.pid(), Tenant: m.r.tenant,
				Direction: dir, Reason: m.reason.String()}
			agg[k] = ev
		}
		ev.Blocks++
		ev.Pages += out.Moved
		ev.Bytes += bytes
	}
	for _, ev := range agg {
		d.events.publish(*ev)
	}
	d.logMoveFailures(failed)
}

// moveFailure sums up the moves that failed for one reason in an epoch.
type moveFailure struct {
	moves, pages int
	example      error
}

// callErrno names the errno behind a mover error that stopped a move, ""
// for a budget or the deadline (counted elsewhere) or no error.
func callErrno(err error) string {
	switch {
	case err == nil, errors.Is(err, numa.ErrBudget), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, context.Canceled):
		return ""
	case errors.Is(err, numa.ErrNoMemory):
		return "ENOMEM"
	case errors.Is(err, numa.ErrNoNode):
		return "ENODEV"
	case errors.Is(err, numa.ErrProcessGone):
		return "ESRCH"
	case errors.Is(err, numa.ErrPermission):
		return "EPERM"
	}
	return "other"
}

// moveFailed counts the pages a move skipped because of an error (a
// move_pages call that failed as a whole reports no per-page errno) under
// the error's errno, and notes it for the epoch's log.
func (d *Daemon) moveFailed(failed map[string]*moveFailure, m plannedMove, out numa.Outcome) {
	name := callErrno(out.Err)
	if name == "" {
		return
	}
	if out.Skipped > 0 {
		d.metrics.migErrors.WithLabelValues(name).Add(float64(out.Skipped))
	}
	f := failed[name]
	if f == nil {
		f = &moveFailure{example: fmt.Errorf("region %d block %d: %w", m.r.id, m.index, out.Err)}
		failed[name] = f
	}
	f.moves++
	f.pages += out.Skipped
}

// logMoveFailures logs, once per epoch and reason, the moves that failed.
func (d *Daemon) logMoveFailures(failed map[string]*moveFailure) {
	log := d.log.Named("mover")
	for name, f := range failed {
		log.Warn("moves failed", "errno", name, "moves", f.moves, "pages", f.pages, "error", f.example)
	}
	// Full nodes are logged once per backoff (backoff.go).
}

// doneFailed handles an outcome the planner did not accept. A block freed
// between the plan and now (its region unregistered or its process gone
// while the mover ran) is normal: ErrUntracked. Anything else
// (ErrNotPending, ErrUnknownBlock) means the daemon and the planner
// disagree about which moves are pending: a bug, logged and counted.
func (d *Daemon) doneFailed(m plannedMove, err error) {
	if errors.Is(err, plan.ErrUntracked) {
		return
	}
	dir := dirDemote
	if m.promote {
		dir = dirPromote
	}
	d.metrics.epochErrors.Inc()
	d.log.Named("planner").Error("planner refused a move's outcome", "region", m.r.id, "block", m.index,
		"direction", dir, "error", err)
}

// crossTenantEvent tells the tenant whose blocks were taken.
func (d *Daemon) crossTenantEvent(ev plan.Event) {
	d.metrics.crossEvictions.Add(float64(ev.Blocks))
	d.events.publish(api.Event{Type: api.EventCrossTenantEvict, Tenant: d.nameOf(ev.Tenant),
		By: d.nameOf(ev.Requester), Blocks: ev.Blocks, Bytes: ev.Bytes,
		Reason: "another tenant needed fast-tier room its own blocks could not free"})
	d.log.Named("planner").Info("cross-tenant eviction", "tenant", d.nameOf(ev.Tenant),
		"by", d.nameOf(ev.Requester), "blocks", ev.Blocks, "bytes", ev.Bytes)
}

func (d *Daemon) nameOf(t uint32) string { return d.tenantName[t] }
