package daemon

import (
	"fmt"

	"github.com/kvtier/kvtier/daemon/api"
)

// Reload applies a new config: policy, budgets, tenants, rules, epoch,
// move timeout and log level. Tracked blocks keep their tiers, heat and
// pending moves. The socket, metrics address, samplers and tiers need a
// restart; a change to them is logged and ignored. On error nothing
// changes.
func (d *Daemon) Reload(next *Config) error {
	next = next.withOverrides(d.opts)
	d.mu.Lock()
	defer d.mu.Unlock()
	pc, err := d.plannerConfig(next)
	if err != nil {
		d.metrics.reloads.WithLabelValues("error").Inc()
		return err
	}
	oldPC := d.planner.Config()
	if err := d.planner.Reconfigure(pc, d.now()); err != nil {
		d.metrics.reloads.WithLabelValues("error").Inc()
		return fmt.Errorf("reconfiguring the planner: %w", err)
	}
	// The mover keeps its token bucket: a reload neither grants a fresh
	// burst of migration bandwidth nor forgets what was spent.
	if err := d.mover.SetBudgets(moverConfig(next).Budgets); err != nil {
		_ = d.planner.Reconfigure(oldPC, d.now())
		d.metrics.reloads.WithLabelValues("error").Inc()
		return fmt.Errorf("reloading the mover budgets: %w", err)
	}
	old := d.cfg
	for _, w := range restartOnly(old, next) {
		d.log.Warn("config change needs a restart; keeping the running value", "setting", w)
	}
	next.API, next.Metrics, next.Samplers, next.Tiers, next.KernelTiering, next.Record =
		old.API, old.Metrics, old.Samplers, old.Tiers, old.KernelTiering, old.Record
	d.cfg = next
	for name := range old.Budgets.Tenants {
		d.dropIdleTenant(name) // its budget may be gone
	}
	d.epochStat.Length = next.Epoch.String()
	d.log.SetLevel(levelOf(next.Log.Level))
	d.metrics.reloads.WithLabelValues("ok").Inc()
	return nil
}

// restartOnly names the settings that differ but only apply at start.
func restartOnly(old, next *Config) []string {
	var out []string
	if old.API != next.API {
		out = append(out, "api")
	}
	if old.Metrics != next.Metrics {
		out = append(out, "metrics.listen")
	}
	if fmt.Sprint(old.Samplers) != fmt.Sprint(next.Samplers) {
		out = append(out, "sampler")
	}
	if fmt.Sprint(old.Tiers) != fmt.Sprint(next.Tiers) {
		out = append(out, "tiers")
	}
	if old.KernelTiering != next.KernelTiering {
		out = append(out, "kernel_tiering")
	}
	if old.Record != next.Record {
		out = append(out, "record")
	}
	if old.Log.JSON != next.Log.JSON {
		out = append(out, "log.json")
	}
	return out
}

// ReloadFile loads the config at path and applies it with Reload. A bad
// config is logged with its positions and the running one kept.
func (d *Daemon) ReloadFile(path string) bool {
	log := d.log.Named("reload")
	cfg, err := LoadConfig(path)
	if err == nil {
		err = d.Reload(cfg)
	} else {
		d.metrics.reloads.WithLabelValues("error").Inc()
	}
	if err != nil {
		log.Error("reload failed; keeping the running config", "path", path, "error", err)
		return false
	}
	log.Info("config reloaded", "path", path, "policy", cfg.Policy.String())
	d.events.publish(api.Event{Type: api.EventConfigReloaded, Reason: path})
	return true
}
