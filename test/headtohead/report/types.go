// Package report holds the head-to-head benchmark's collected runs and
// writes them out: RESULTS.md (a table per configuration and how each was
// tuned), results.json (everything) and hotshare.svg (the hot-set share on
// node 0 over time, one line per configuration).
package report

import (
	"time"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

// Results are one benchmark run: every configuration on one guest.
type Results struct {
	Started  time.Time `json:"started"`
	Command  string    `json:"command"`
	Commit   string    `json:"commit"`
	Kernel   string    `json:"kernel"`
	Topology string    `json:"topology"`
	// Workload is the workload's flags, the same in every configuration.
	Workload string `json:"workload_flags"`
	Runs     []Run  `json:"runs"`
	// Targets are issue 11's targets, measured (not asserted).
	Targets []Target `json:"targets,omitempty"`
}

// Run is one configuration's boot.
type Run struct {
	Config string `json:"config"`
	// About says what the configuration is; Tuning how it was set up.
	About  string `json:"about"`
	Tuning string `json:"tuning"`
	// Note says where the configuration differs from what was asked (a
	// daemon that does not know sampler "auto" yet, say).
	Note     string         `json:"note,omitempty"`
	Wall     float64        `json:"wall_seconds"`
	Workload *result.Report `json:"workload,omitempty"`
	// VMStat are the /proc/vmstat counters of migration that changed.
	VMStat map[string]int64 `json:"vmstat_delta"`
	// Metrics are kvtier's metrics at the end (kvtier configurations).
	Metrics map[string]float64 `json:"kvtier_metrics,omitempty"`
	// DaemonCPU and KdamondCPU are CPU seconds (user + system) of the
	// kvtier daemon and of every kdamond thread at the end.
	DaemonCPU  float64 `json:"daemon_cpu_seconds"`
	KdamondCPU float64 `json:"kdamond_cpu_seconds"`
	// Kernel is the tiering knobs while the workload ran; Setup the
	// output of the configuration's setup step (DAMOS schemes, TPP).
	Kernel string `json:"kernel_knobs"`
	Setup  string `json:"setup,omitempty"`
	// DamosStats are the DAMOS schemes' statistics at the end.
	DamosStats string   `json:"damos_stats,omitempty"`
	Errors     []string `json:"errors,omitempty"`
	// SimShare is what `kvtier sim --mode tiering` predicts for the
	// trace replay's node-0 read share (kvtier configurations), with the
	// command that predicted it.
	SimShare   *float64 `json:"sim_replay_share,omitempty"`
	SimCommand string   `json:"sim_command,omitempty"`
}

// Target is one of issue 11's targets with what was measured.
type Target struct {
	Name     string `json:"name"`
	Met      bool   `json:"met"`
	Measured string `json:"measured"`
}

// KvtierPages is the pages kvtier's metrics say it moved (both ways).
func (r *Run) KvtierPages() float64 {
	var n float64
	for k, v := range r.Metrics {
		if len(k) > len("kvtier_migrated_pages_total") && k[:len("kvtier_migrated_pages_total")] == "kvtier_migrated_pages_total" {
			n += v
		}
	}
	return n
}

// KernelPages is the pages the kernel counted as migrated: move_pages,
// NUMA balancing, DAMOS and demotion all count in pgmigrate_success.
func (r *Run) KernelPages() int64 { return r.VMStat["pgmigrate_success"] }

// ChecksumsOK reports whether the workload ran and every block matched.
func (r *Run) ChecksumsOK() bool { return r.Workload != nil && r.Workload.ChecksumsOK() }

// Phase returns the workload's phase called name, or nil.
func (r *Run) Phase(name string) *result.Phase {
	if r.Workload == nil {
		return nil
	}
	for i := range r.Workload.Phases {
		if r.Workload.Phases[i].Name == name {
			return &r.Workload.Phases[i]
		}
	}
	return nil
}
