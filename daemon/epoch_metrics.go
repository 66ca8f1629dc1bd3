package daemon

import (
	"math"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy/plan"
)

// finishEpoch updates the epoch status, budget use and gauges.
func (d *Daemon) finishEpoch(start time.Time, decision time.Duration, pl *plan.Plan, rep *numa.Report, hits tenantHits) {
	d.expireDemoted()
	d.metrics.decision.Observe(decision.Seconds())
	d.metrics.epochs.Inc()
	pages := 0
	var bps float64
	if rep != nil {
		pages = rep.PagesToFast + rep.PagesToSlow
		// The rate the budget limits: this epoch's bytes over its length,
		// not the mover's speed while it ran (rep.BytesPerSec).
		if e := d.cfg.Epoch.Seconds(); e > 0 {
			bps = float64(rep.BytesMoved) / e
		}
	}
	st := d.planner.Stats()
	d.budgetUse = d.budgetUseOf(st, pages, int64(bps), pl.Deferred)
	d.quotaGauges(st)
	d.tierGauges()
	ratios := make([]float64, 0, len(hits))
	for _, h := range hits {
		if h[0] > 0 {
			ratios = append(ratios, float64(h[1])/float64(h[0]))
		}
	}
	d.metrics.fairness.Set(jain(ratios))
	d.metrics.repromotion.Set(d.repromotionRate())
	elapsed := time.Since(start)
	d.metrics.epoch.Observe(elapsed.Seconds())
	d.epochStat.Count++
	d.epochStat.LastSeconds = elapsed.Seconds()
	d.epochStat.DecisionSeconds = decision.Seconds()
	if d.rec != nil {
		d.rec.epoch()
	}
}

// budgetUseOf computes the budget use gauges.
func (d *Daemon) budgetUseOf(st plan.Stats, pages int, bps int64, deferred int) (u api.BudgetUse) {
	b := d.cfg.Budgets
	u.FastBytes, u.PagesMoved, u.BytesPerSec, u.DeferredMoves = st.FastBytes, pages, bps, deferred
	u.FastCapacity = d.planner.Capacity() // the budget, or the fast node's room when lower
	ratio := func(name string, used, limit float64) {
		v := 0.0
		if limit > 0 {
			v = used / limit
		}
		d.metrics.budgetUse.WithLabelValues(name).Set(v)
	}
	ratio("fast_bytes", float64(st.FastBytes), float64(b.FastBytes))
	ratio("pages_per_epoch", float64(pages), float64(b.PagesPerEpoch))
	ratio("migrate_bytes_per_sec", float64(bps), float64(b.MigrateBytesPerSec))
	return u
}

// quotaGauges sets the fast-tier quota, use and share of every tenant
// with a budget, and drops the series of tenants a reload removed.
func (d *Daemon) quotaGauges(st plan.Stats) {
	m := d.metrics
	used := map[string]int64{}
	for _, t := range st.Tenants {
		used[d.nameOf(t.Tenant)] += t.FastBytes
	}
	for name := range m.quotaTenants {
		if _, ok := d.cfg.Budgets.Tenants[name]; !ok {
			m.tenantQuota.DeleteLabelValues(name)
			m.tenantUsed.DeleteLabelValues(name)
			m.tenantQuotaUse.DeleteLabelValues(name)
			delete(m.quotaTenants, name)
		}
	}
	for name, q := range d.cfg.Budgets.Tenants {
		m.quotaTenants[name] = true
		ratio := 0.0
		if q > 0 {
			ratio = float64(used[name]) / float64(q)
		}
		m.tenantQuota.WithLabelValues(name).Set(float64(q))
		m.tenantUsed.WithLabelValues(name).Set(float64(used[name]))
		m.tenantQuotaUse.WithLabelValues(name).Set(ratio)
	}
}

// tierGauges sets bytes per tenant and tier, and blocks per tier.
func (d *Daemon) tierGauges() {
	type tb struct{ fast, slow int64 }
	per := map[string]*tb{}
	for name := range d.cfg.Budgets.Tenants {
		per[name] = &tb{}
	}
	var fastBlocks, slowBlocks int
	decay := viewHeatDecay(d.cfg.Epoch)
	for _, r := range d.regions {
		t := per[r.tenant]
		if t == nil {
			t = &tb{}
			per[r.tenant] = t
		}
		fast, slow, n := r.tierBytes()
		t.fast += int64(fast)
		t.slow += int64(slow)
		fastBlocks += n
		slowBlocks += r.blocks.len() - n
		if r.accesses > 0 { // else every block's heat is 0
			r.heat.decay(decay)
		}
	}
	// Drop only the series of tenants gone: a Reset would leave a scrape
	// between it and the Sets without the gauge.
	m := d.metrics
	for name := range m.tierTenants {
		if per[name] == nil {
			m.tierBytes.DeleteLabelValues(name, "fast")
			m.tierBytes.DeleteLabelValues(name, "slow")
			delete(m.tierTenants, name)
		}
	}
	for name, t := range per {
		m.tierTenants[name] = true
		m.tierBytes.WithLabelValues(name, "fast").Set(float64(t.fast))
		m.tierBytes.WithLabelValues(name, "slow").Set(float64(t.slow))
	}
	d.metrics.blocks.WithLabelValues("fast").Set(float64(fastBlocks))
	d.metrics.blocks.WithLabelValues("slow").Set(float64(slowBlocks))
}

// expireDemoted trims the re-promotion window (the sweep expires the
// regions' demotion stamps).
func (d *Daemon) expireDemoted() {
	if n := len(d.regretWin); n > 4096 {
		d.regretWin = append(d.regretWin[:0], d.regretWin[n-4096:]...)
	}
}

// repromotionRate is regret events per demotion over the recent window
// (the window holds a 0 per demotion and a 1 per regret).
func (d *Daemon) repromotionRate() float64 {
	var dem, reg float64
	for _, v := range d.regretWin {
		if v == 0 {
			dem++
		} else {
			reg++
		}
	}
	if dem == 0 {
		return 0
	}
	return reg / dem
}

// viewHeatHalfLife is how long a block's heat in placement views takes to
// halve. It is a wall-clock time rather than a number of epochs so that the
// heat strips of `kvtier placement` read the same at any epoch length: a
// block read a few times stays visibly warm for several seconds.
const viewHeatHalfLife = 4 * time.Second

// viewHeatDecay returns the factor that one epoch applies to view heat.
func viewHeatDecay(epoch time.Duration) float32 {
	if epoch <= 0 {
		return 0.5
	}
	return float32(math.Pow(0.5, epoch.Seconds()/viewHeatHalfLife.Seconds()))
}

// viewHeat rounds a decayed access count for the API, saturating at the
// largest uint32.
func viewHeat(h float32) uint32 {
	if h >= math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(math.Round(float64(h)))
}
