package daemon

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Directions of migrations, the values of the "direction" label.
const (
	dirPromote = "promote"
	dirDemote  = "demote"
)

// metrics holds the daemon's Prometheus collectors in its own registry.
// Label sets are fixed and small: tenant (configured or registered
// tenants; the quota gauges only configured ones), tier (fast, slow),
// direction (promote, demote), errno, sampler and budget names.
type metrics struct {
	reg *prometheus.Registry

	tierBytes     *prometheus.GaugeVec   // tenant, tier
	migPages      *prometheus.CounterVec // direction
	migBytes      *prometheus.CounterVec // direction
	migErrors     *prometheus.CounterVec // errno
	samplerEvents *prometheus.CounterVec // sampler
	samplerDrops  *prometheus.CounterVec // sampler
	// samplerKernelCPU is the CPU time of a sampler's kernel threads.
	samplerKernelCPU *prometheus.CounterVec // sampler
	regrets          prometheus.Counter
	repromotion      prometheus.Gauge
	crossEvictions   prometheus.Counter
	decision         prometheus.Histogram
	epoch            prometheus.Histogram
	epochs           prometheus.Counter
	epochErrors      prometheus.Counter
	fairness         prometheus.Gauge
	budgetUse        *prometheus.GaugeVec // budget
	tenantQuota      *prometheus.GaugeVec // tenant
	tenantUsed       *prometheus.GaugeVec // tenant
	tenantQuotaUse   *prometheus.GaugeVec // tenant
	regions          prometheus.Gauge
	blocks           *prometheus.GaugeVec // tier
	hints            prometheus.Counter
	regionsDropped   prometheus.Counter
	deadlineMisses   prometheus.Counter
	reconciled       prometheus.Counter
	nodeFull         *prometheus.CounterVec
	nodeBackoff      *prometheus.GaugeVec
	reloads          *prometheus.CounterVec // result
	eventsDropped    prometheus.Counter
	traceRecords     prometheus.Counter
	kernelTiering    prometheus.Gauge
	singleNode       prometheus.Gauge
	steadyState      prometheus.Gauge
	plannedDeferred  prometheus.Counter

	quotaTenants map[string]bool // tenant label values of the quota gauges
	tierTenants  map[string]bool // tenant label values of tierBytes
}

func newMetrics(version string) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), quotaTenants: map[string]bool{}, tierTenants: map[string]bool{}}
	f := factory{m.reg}
	m.tierBytes = f.gaugeVec("tier_bytes", "Bytes of tracked KV blocks per tenant in each tier.", "tenant", "tier")
	m.migPages = f.counterVec("migrated_pages_total", "Pages moved between tiers by direction.", "direction")
	m.migBytes = f.counterVec("migrated_bytes_total", "Bytes moved between tiers by direction.", "direction")
	m.migErrors = f.counterVec("migration_errors_total", "Pages that failed to move, by errno.", "errno")
	m.samplerEvents = f.counterVec("sampler_events_total", "Accesses the sampler counted inside watched regions.", "sampler")
	m.samplerDrops = f.counterVec("sampler_drops_total", "Sampled accesses lost because the in-kernel count map was full.", "sampler")
	m.samplerKernelCPU = f.counterVec("sampler_kernel_cpu_seconds_total",
		"CPU time of kernel threads working for the sampler (damon: its kdamond), not in process_cpu_seconds_total.", "sampler")
	m.regrets = f.counter("regret_events_total", "Demoted blocks accessed again within the regret horizon.")
	m.repromotion = f.gauge("repromotion_ratio", "Regret events per demoted block over the recent epochs.")
	m.crossEvictions = f.counter("cross_tenant_evictions_total", "Blocks of one tenant demoted to make room for another.")
	m.decision = f.histogram("policy_decision_seconds", "Time the planner and policy take to decide one epoch.",
		prometheus.ExponentialBuckets(10e-6, 4, 10))
	m.epoch = f.histogram("epoch_duration_seconds", "Wall time of one epoch: drain, decide, move, feedback.",
		prometheus.ExponentialBuckets(100e-6, 4, 10))
	m.epochs = f.counter("epochs_total", "Epochs run.")
	m.epochErrors = f.counter("epoch_errors_total", "Errors met in epochs: a sampler that failed to drain, a move outcome the planner refused (the loop goes on).")
	m.fairness = f.gauge("tenant_fairness_jain", "Jain's fairness index of per-tenant fast-tier hit ratios (1 is fair).")
	m.budgetUse = f.gaugeVec("budget_usage_ratio", "Share of each budget used in the last epoch (0 when unlimited).", "budget")
	m.tenantQuota = f.gaugeVec("tenant_fast_quota_bytes", "Fast-tier quota of each tenant with a budget (0 is no limit).", "tenant")
	m.tenantUsed = f.gaugeVec("tenant_fast_used_bytes",
		"Fast-tier bytes of each tenant with a budget, as the planner counts them against the quota (pending demotions included).", "tenant")
	m.tenantQuotaUse = f.gaugeVec("tenant_fast_quota_usage_ratio",
		"Fast-tier bytes used over the quota of each tenant with a budget (0 when unlimited).", "tenant")
	m.regions = f.gauge("regions", "Registered KV regions.")
	m.blocks = f.gaugeVec("blocks", "Registered KV blocks in each tier.", "tier")
	m.hints = f.counter("hint_blocks_total", "Block accesses reported by engines through the API.")
	m.regionsDropped = f.counter("regions_dropped_total", "Regions dropped because their process exited.")
	m.reconciled = f.counter("placement_corrections_total", "Blocks a placement reconcile found in another tier than the daemon believed (moved by someone else).")
	m.nodeFull = f.counterVec("node_full_total", "Mover runs that found a node full (ENOMEM).", "node")
	m.nodeBackoff = f.gaugeVec("node_backoff_epochs", "Length of the backoff from a full node (0: moves to it are not held).", "node")
	m.deadlineMisses = f.counter("move_deadline_exceeded_total", "Epochs whose moves were cut short by the deadline.")
	m.reloads = f.counterVec("config_reloads_total", "Config reloads by result.", "result")
	m.eventsDropped = f.counter("events_dropped_total", "Events not delivered to a slow event-stream subscriber.")
	m.traceRecords = f.counter("trace_records_total", "Records written to the trace being recorded.")
	m.kernelTiering = f.gauge("kernel_tiering_active", "1 when the kernel's own NUMA balancing or demotion is on.")
	m.singleNode = f.gauge("single_node", "1 when the host has one memory node: every block is fast and nothing moves.")
	m.steadyState = f.gauge("steady_state_sampling", "1 when an attached sampler sees steady-state accesses "+
		"(perf, damon, uprobe hints); 0 when none does and only API hints and page faults (first touches) move blocks.")
	m.plannedDeferred = f.counter("moves_not_executed_total", "Planned block moves not executed (deadline, report mode, errors).")
	info := f.gaugeVec("build_info", "The daemon's version.", "version")
	info.WithLabelValues(version).Set(1)
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, d := range []string{dirPromote, dirDemote} {
		m.migPages.WithLabelValues(d)
		m.migBytes.WithLabelValues(d)
	}
	for _, t := range []string{"fast", "slow"} {
		m.blocks.WithLabelValues(t)
	}
	return m
}

// handler serves the registry.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// factory registers collectors under the kvtier_ namespace.
type factory struct{ reg *prometheus.Registry }

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "kvtier", Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "kvtier", Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "kvtier", Name: name, Help: help})
	f.reg.MustRegister(g)
	return g
}

func (f factory) gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "kvtier", Name: name, Help: help}, labels)
	f.reg.MustRegister(g)
	return g
}

func (f factory) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "kvtier", Name: name, Help: help, Buckets: buckets})
	f.reg.MustRegister(h)
	return h
}

// jain is Jain's fairness index of xs: (sum x)^2 / (n * sum x^2), 1 when
// all are equal; 1 for no values or all zeros.
func jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if len(xs) == 0 || sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sq)
}
