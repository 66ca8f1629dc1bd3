package daemon

import (
	"encoding/json"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
)

// regionViews lists the regions caller c may see (its own; all for
// root; none still being registered) sorted by ID, of one pid (0: all).
func (d *Daemon) regionViews(c caller, pid int) []api.Region {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := []api.Region{}
	for _, r := range d.regions {
		if (pid == 0 || r.pid() == pid) && c.mayOwn(r.owner) && !r.adding {
			out = append(out, r.view())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (d *Daemon) regionView(c caller, id uint64) (api.Region, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.regionFor(c, id)
	if err != nil {
		return api.Region{}, err
	}
	return r.view(), nil
}

// Status returns the daemon's status, as the API reports it.
func (d *Daemon) Status() api.Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	cfg := d.cfg
	s := api.Status{Version: d.opts.Version, PID: os.Getpid(), Started: d.start.UTC(),
		UptimeSeconds: time.Since(d.start).Seconds(), ConfigFile: cfg.File, Policy: cfg.Policy.String(),
		Budgets: budgetsView(cfg.Budgets), BudgetUse: d.budgetUse, Epoch: d.epochStat, Regions: len(d.regions),
		SingleNode: d.slowNode < 0, Moving: d.moving, KernelTiering: d.kernel, Recording: d.traceStatusLocked(),
		NodeBackoff: d.backoffStatus()}
	if st, err := numa.ReadStat(d.opts.ProcRoot, os.Getpid()); err == nil {
		s.CPUSeconds = st.CPU().Seconds()
	}
	sampling := d.sampling
	s.Sampling = &sampling
	for _, sm := range d.samplers {
		ss := api.SamplerStatus{Name: sm.label(), Events: sm.last.Matched, Drops: sm.last.Drops,
			KernelCPUSeconds: sm.last.KernelCPUSeconds}
		if sm.err != nil {
			ss.Error = sm.err.Error()
		}
		for _, r := range d.regions {
			for _, w := range r.watched {
				if w == sm.name {
					ss.Watched++
				}
			}
		}
		s.Samplers = append(s.Samplers, ss)
	}
	s.Tenants = d.tenantStatus()
	return s
}

func (d *Daemon) tenantStatus() []api.TenantStatus {
	per := map[string]*api.TenantStatus{}
	get := func(n string) *api.TenantStatus {
		if t := per[n]; t != nil {
			return t
		}
		t := &api.TenantStatus{Name: n, Budget: d.cfg.Budgets.Tenants[n]}
		per[n] = t
		return t
	}
	for n := range d.cfg.Budgets.Tenants {
		get(n)
	}
	for _, r := range d.regions {
		t := get(r.tenant)
		t.Regions++
		v := r.view()
		t.FastBytes += int64(v.FastBytes)
		t.SlowBytes += int64(v.SlowBytes)
	}
	out := make([]api.TenantStatus, 0, len(per))
	for _, t := range per {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func budgetsView(b Budgets) api.Budgets {
	v := api.Budgets{FastBytes: b.FastBytes, Tenants: map[string]int64{}, MigrateBytesPerSec: b.MigrateBytesPerSec,
		PagesPerEpoch: b.PagesPerEpoch}
	for k, q := range b.Tenants {
		v.Tenants[k] = q
	}
	return v
}

func (d *Daemon) handleStatus(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, d.Status())
}

func (d *Daemon) handleTopology(w http.ResponseWriter, _ *http.Request) {
	t := api.Topology{Nodes: []api.Node{}}
	for _, n := range d.topo.Nodes {
		t.Nodes = append(t.Nodes, api.Node{ID: n.ID, CPUs: n.CPUs, MemTotal: n.MemTotal, MemFree: n.MemFree,
			Distances: n.Distances, Tier: n.Tier, Class: n.Class.String(), Reason: n.Reason})
	}
	writeJSON(w, http.StatusOK, t)
}

func (d *Daemon) handlePolicy(w http.ResponseWriter, _ *http.Request) {
	cfg := d.Config()
	params := map[string]string{}
	for k, v := range cfg.Policy.Params {
		params[k] = v
	}
	writeJSON(w, http.StatusOK, api.PolicyInfo{Spec: cfg.Policy.String(), Name: cfg.Policy.Name, Params: params,
		Epoch: cfg.Epoch.String(), Budgets: budgetsView(cfg.Budgets),
		Planner: api.PlannerParams{Decay: cfg.Planner.Decay, Cooldown: cfg.Planner.Cooldown.String(),
			PromoteMin: cfg.Planner.PromoteMin, ReuseEpochs: cfg.Planner.ReuseEpochs,
			Headroom: cfg.Planner.Headroom, ReconcileEpochs: cfg.Planner.ReconcileEpochs,
			ReconcilePages: cfg.Planner.ReconcilePages}})
}

// handleEvents streams events as NDJSON until the client goes away or the
// daemon stops.
func (d *Daemon) handleEvents(w http.ResponseWriter, r *http.Request) {
	c, err := callerOf(r)
	if err != nil {
		writeError(w, err)
		return
	}
	ch, cancel := d.events.subscribe(d.owners.eventFilter(c))
	defer cancel()
	// The stream outlives api.read_timeout: that bounds reading the
	// request, and the request is read.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	enc := json.NewEncoder(w)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.stopping:
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if enc.Encode(ev) != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}
