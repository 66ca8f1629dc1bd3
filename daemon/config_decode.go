package daemon

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/policy"
)

// The raw structs mirror the HCL schema. Values that need parsing (sizes,
// durations, enums) are kept as expressions so that errors point at them.
type rawConfig struct {
	Epoch         hcl.Expression `hcl:"epoch,optional"`
	ScanInterval  hcl.Expression `hcl:"scan_interval,optional"`
	KernelTiering hcl.Expression `hcl:"kernel_tiering,optional"`
	MaxTenants    hcl.Expression `hcl:"max_tenants,optional"`
	StateDir      hcl.Expression `hcl:"state_dir,optional"`
	Tiers         *rawTiers      `hcl:"tiers,block"`
	Budgets       *rawBudgets    `hcl:"budgets,block"`
	Planner       *rawPlanner    `hcl:"planner,block"`
	Samplers      []rawNamed     `hcl:"sampler,block"`
	Policy        *rawNamed      `hcl:"policy,block"`
	Rules         []rawRule      `hcl:"rule,block"`
	API           *rawAPI        `hcl:"api,block"`
	Metrics       *rawMetrics    `hcl:"metrics,block"`
	Log           *rawLog        `hcl:"log,block"`
	Record        *rawRecord     `hcl:"record,block"`
}

type rawTiers struct {
	Fast hcl.Expression `hcl:"fast,optional"`
	Slow hcl.Expression `hcl:"slow,optional"`
}

type rawBudgets struct {
	FastBytes          hcl.Expression `hcl:"fast_bytes,optional"`
	MigrateBytesPerSec hcl.Expression `hcl:"migrate_bytes_per_sec,optional"`
	PagesPerEpoch      hcl.Expression `hcl:"pages_per_epoch,optional"`
	MoveTimeout        hcl.Expression `hcl:"move_timeout,optional"`
	Tenants            []rawTenant    `hcl:"tenant,block"`
}

type rawPlanner struct {
	Decay      hcl.Expression `hcl:"decay,optional"`
	Cooldown   hcl.Expression `hcl:"cooldown,optional"`
	PromoteMin hcl.Expression `hcl:"promote_min,optional"`
	Reuse      hcl.Expression `hcl:"reuse_epochs,optional"`
	Headroom   hcl.Expression `hcl:"headroom,optional"`
	Reconcile  hcl.Expression `hcl:"reconcile_epochs,optional"`
	RecPages   hcl.Expression `hcl:"reconcile_pages,optional"`
}

type rawTenant struct {
	Name      string         `hcl:"name,label"`
	FastBytes hcl.Expression `hcl:"fast_bytes"`
	DefRange  hcl.Range      `hcl:",def_range"`
}

type rawNamed struct {
	Name     string    `hcl:"name,label"`
	Params   hcl.Body  `hcl:",remain"`
	DefRange hcl.Range `hcl:",def_range"`
}

type rawRule struct {
	Name         string         `hcl:"name,label"`
	Exe          *string        `hcl:"exe,optional"`
	Cmdline      hcl.Expression `hcl:"cmdline,optional"`
	Cgroup       *string        `hcl:"cgroup,optional"`
	Mapping      *string        `hcl:"mapping,optional"`
	MinSize      hcl.Expression `hcl:"min_size,optional"`
	BlockSize    hcl.Expression `hcl:"block_size,optional"`
	Tenant       *string        `hcl:"tenant,optional"`
	Class        hcl.Expression `hcl:"class,optional"`
	Priority     hcl.Expression `hcl:"priority,optional"`
	PinnedPrefix hcl.Expression `hcl:"pinned_prefix,optional"`
	DefRange     hcl.Range      `hcl:",def_range"`
}

type rawMetrics struct {
	Listen *string `hcl:"listen,optional"`
}

type rawLog struct {
	Level hcl.Expression `hcl:"level,optional"`
	JSON  *bool          `hcl:"json,optional"`
}

// decodeConfig parses src, the HCL text of filename, into a Config that
// starts from DefaultConfig. It returns every diagnostic found, in the
// file's block order, rather than stopping at the first, so one run of
// `kvtier check` shows all a file's mistakes.
func decodeConfig(filename string, src []byte) (*Config, hcl.Diagnostics) {
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	var raw rawConfig
	if d := gohcl.DecodeBody(file.Body, nil, &raw); d.HasErrors() {
		return nil, append(diags, d...)
	}
	cfg := DefaultConfig()
	d := &decoder{}
	if dur, ok := d.duration(raw.Epoch, "epoch"); ok {
		cfg.Epoch = dur
		d.check(dur >= time.Millisecond && dur <= time.Hour, raw.Epoch, "epoch",
			"an epoch between 1ms and 1h")
	}
	cfg.Planner.Cooldown = DefaultCooldownEpochs * cfg.Epoch
	if raw.Planner != nil {
		d.planner(raw.Planner, cfg)
	}
	if dur, ok := d.duration(raw.ScanInterval, "scan_interval"); ok {
		cfg.ScanInterval = dur
		d.check(dur >= 100*time.Millisecond, raw.ScanInterval, "scan_interval", "a duration of at least 100ms")
	}
	if raw.Record != nil {
		d.record(raw.Record, cfg)
	}
	d.settings(&raw, cfg)
	if raw.Tiers != nil {
		d.tiers(raw.Tiers, cfg)
	}
	if raw.Budgets != nil {
		d.budgets(raw.Budgets, cfg)
		if n := len(cfg.Budgets.Tenants); n > cfg.MaxTenants {
			d.fail(raw.Budgets.Tenants[cfg.MaxTenants].DefRange, "Too many tenants",
				fmt.Sprintf("%d tenant budgets, more than max_tenants = %d", n, cfg.MaxTenants))
		}
	}
	d.samplers(raw.Samplers, cfg)
	if raw.Policy != nil {
		d.policy(raw.Policy, cfg)
	}
	for i := range raw.Rules {
		d.rule(&raw.Rules[i], cfg)
	}
	if raw.API != nil {
		d.api(raw.API, cfg)
	}
	if raw.Metrics != nil && raw.Metrics.Listen != nil {
		cfg.Metrics.Listen = *raw.Metrics.Listen
	}
	if raw.Log != nil {
		d.log(raw.Log, cfg)
	}
	return cfg, append(diags, d.diags...)
}

// log decodes the log block: the level, one of LogLevels, and whether
// lines are JSON; what it leaves out keeps DefaultConfig's value.
func (d *decoder) log(l *rawLog, cfg *Config) {
	if s, ok := d.enum(l.Level, "level", LogLevels...); ok {
		cfg.Log.Level = s
	}
	if l.JSON != nil {
		cfg.Log.JSON = *l.JSON
	}
}

// samplers decodes the sampler blocks: each names a sampler kvtier has
// (bpf.Known) or "auto", once; "auto" goes with no sampler it may choose.
func (d *decoder) samplers(raw []rawNamed, cfg *Config) {
	seen := map[string]bool{}
	for _, s := range raw {
		switch {
		case s.Name != bpf.Auto && !bpf.IsKnown(s.Name):
			d.fail(s.DefRange, "Unknown sampler", fmt.Sprintf("sampler %q: want %s or one of %s",
				s.Name, bpf.Auto, strings.Join(bpf.Known(), ", ")))
		case seen[s.Name]:
			d.fail(s.DefRange, "Duplicate sampler", fmt.Sprintf("sampler %q is configured twice", s.Name))
		}
		seen[s.Name] = true
		cfg.Samplers = append(cfg.Samplers, d.sampler(s))
	}
	for _, s := range raw {
		if s.Name != bpf.Auto && seen[bpf.Auto] && slices.Contains(bpf.AutoCandidates(), s.Name) {
			d.fail(s.DefRange, "Sampler chosen twice", fmt.Sprintf("sampler %q: sampler %q already tries %s; "+
				"configure one or the other", s.Name, bpf.Auto, strings.Join(bpf.AutoCandidates(), " and ")))
		}
	}
}

func (d *decoder) tiers(t *rawTiers, cfg *Config) {
	cfg.Tiers = Tiers{Fast: d.nodes(t.Fast, "fast"), Slow: d.nodes(t.Slow, "slow")}
	fast := map[int]bool{}
	for _, n := range cfg.Tiers.Fast {
		fast[n] = true
	}
	for _, n := range cfg.Tiers.Slow {
		if fast[n] {
			d.fail(t.Slow.Range(), "Conflicting tiers", fmt.Sprintf("node %d is listed both fast and slow", n))
		}
	}
}

// nodes decodes a list of NUMA node IDs.
func (d *decoder) nodes(e hcl.Expression, name string) []int {
	v, ok := d.value(e)
	if !ok {
		return nil
	}
	if !v.IsKnown() || !(v.Type().IsListType() || v.Type().IsTupleType() || v.Type().IsSetType()) {
		d.fail(e.Range(), "Incorrect attribute value type", name+": want a list of NUMA node IDs such as [1, 2]")
		return nil
	}
	var out []int
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		n, ok := wholeNumber(ev)
		if !ok || n < 0 || n > 1023 {
			d.fail(e.Range(), "Invalid node", name+": want NUMA node IDs between 0 and 1023")
			return nil
		}
		out = append(out, int(n))
	}
	return out
}

// integer decodes a whole number within [lo, hi].
func (d *decoder) integer(e hcl.Expression, name string, lo, hi int64) (int64, bool) {
	v, ok := d.value(e)
	if !ok {
		return 0, false
	}
	n, ok := wholeNumber(v)
	if !ok || n < lo || n > hi {
		d.fail(e.Range(), "Invalid "+name, fmt.Sprintf("%s: want a whole number between %d and %d", name, lo, hi))
		return 0, false
	}
	return n, true
}

func (d *decoder) budgets(b *rawBudgets, cfg *Config) {
	if v, ok := d.size(b.FastBytes, "fast_bytes"); ok {
		cfg.Budgets.FastBytes = v
	}
	if v, ok := d.size(b.MigrateBytesPerSec, "migrate_bytes_per_sec"); ok {
		cfg.Budgets.MigrateBytesPerSec = v
	}
	if n, ok := d.integer(b.PagesPerEpoch, "pages_per_epoch", 0, 1<<40); ok {
		cfg.Budgets.PagesPerEpoch = int(n)
	}
	if dur, ok := d.duration(b.MoveTimeout, "move_timeout"); ok {
		cfg.Budgets.MoveTimeout = dur
		d.check(dur < cfg.Epoch, b.MoveTimeout, "move_timeout", "a duration shorter than the epoch")
	}
	for _, t := range b.Tenants {
		if _, dup := cfg.Budgets.Tenants[t.Name]; dup {
			d.fail(t.DefRange, "Duplicate tenant", fmt.Sprintf("tenant %q has two budgets", t.Name))
		}
		if err := hardLimits.checkLabel("tenant", t.Name); err != nil {
			d.fail(t.DefRange, "Invalid tenant name", err.Error())
		}
		if isNull(t.FastBytes) {
			d.fail(t.DefRange, "Missing fast_bytes", fmt.Sprintf("tenant %q: want fast_bytes, a size such as \"4GiB\"", t.Name))
		}
		v, _ := d.size(t.FastBytes, "fast_bytes")
		cfg.Budgets.Tenants[t.Name] = v
	}
}

func (d *decoder) planner(p *rawPlanner, cfg *Config) {
	if v, ok := d.number(p.Decay, "decay", func(f float64) bool { return f >= 0 && f < 1 },
		"a factor in [0, 1) such as 0.5"); ok {
		cfg.Planner.Decay = v
	}
	if s, ok := d.str(p.Cooldown, "cooldown"); ok {
		dur, err := time.ParseDuration(strings.TrimSpace(s))
		switch {
		case err != nil:
			d.fail(p.Cooldown.Range(), "Invalid duration", fmt.Sprintf("cooldown %q: want a duration such as \"2s\" (\"0s\" turns it off)", s))
		case dur < 0 || dur > time.Hour:
			d.fail(p.Cooldown.Range(), "Invalid cooldown", fmt.Sprintf("cooldown %q: want a duration between 0s and 1h", s))
		default:
			cfg.Planner.Cooldown = dur
		}
	}
	if v, ok := d.number(p.PromoteMin, "promote_min", func(f float64) bool { return f > 0 && f <= 1<<20 },
		"a number of sampled accesses > 0 such as 1"); ok {
		cfg.Planner.PromoteMin = v
	}
	if n, ok := d.integer(p.Reuse, "reuse_epochs", 0, 64); ok {
		cfg.Planner.ReuseEpochs = int(n)
	}
	if v, ok := d.number(p.Headroom, "headroom", func(f float64) bool { return f >= 0 && f <= 0.5 },
		"a share of the fast tier between 0 and 0.5 such as 0.125 (0: none)"); ok {
		cfg.Planner.Headroom = v
	}
	if n, ok := d.integer(p.Reconcile, "reconcile_epochs", 0, 1<<20); ok {
		cfg.Planner.ReconcileEpochs = int(n)
	}
	if n, ok := d.integer(p.RecPages, "reconcile_pages", 1, 1<<30); ok {
		cfg.Planner.ReconcilePages = int(n)
	}
}

func (d *decoder) policy(p *rawNamed, cfg *Config) {
	spec := policy.Spec{Name: p.Name, Params: d.params(p.Params, nil)}
	info, err := policy.Lookup(p.Name)
	if err != nil {
		d.fail(p.DefRange, "Unknown policy", fmt.Sprintf("%v; `kvtier policies` lists them", err))
		return
	}
	if info.Offline {
		d.fail(p.DefRange, "Offline policy", fmt.Sprintf("policy %q needs the future and only runs in the simulator", p.Name))
		return
	}
	if _, err := policy.NewFromSpec(spec, policy.Env{CapacityBytes: 1 << 30, CapacityBlocks: 512}); err != nil {
		d.fail(p.DefRange, "Invalid policy parameters", err.Error())
		return
	}
	cfg.Policy = spec
}

func (d *decoder) rule(r *rawRule, cfg *Config) {
	rule := Rule{Name: r.Name, BlockSize: DefaultBlockSize, Priority: policy.PriorityNormal}
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&rule.Exe, r.Exe)
	set(&rule.Cgroup, r.Cgroup)
	set(&rule.Mapping, r.Mapping)
	set(&rule.Tenant, r.Tenant)
	if err := hardLimits.checkLabel("tenant", rule.Tenant); err != nil {
		d.fail(r.DefRange, "Invalid tenant name", fmt.Sprintf("rule %q: %v", r.Name, err))
	}
	if s, ok := d.str(r.Cmdline, "cmdline"); ok {
		re, err := regexp.Compile(s)
		if err != nil {
			d.fail(r.Cmdline.Range(), "Invalid cmdline", fmt.Sprintf("cmdline: want a Go regular expression: %v", err))
		}
		rule.Cmdline = re
	}
	if rule.Exe == "" && rule.Cmdline == nil && rule.Cgroup == "" {
		d.fail(r.DefRange, "Rule matches nothing",
			fmt.Sprintf("rule %q: want at least one of exe, cmdline or cgroup", r.Name))
	}
	if rule.Mapping == "" && isNull(r.MinSize) {
		d.fail(r.DefRange, "Rule matches no mapping",
			fmt.Sprintf("rule %q: want mapping or min_size", r.Name))
	}
	if v, ok := d.size(r.MinSize, "min_size"); ok {
		rule.MinSize = v
	}
	if v, ok := d.size(r.BlockSize, "block_size"); ok {
		d.check(hardLimits.checkBlockSize(uint64(v)) == nil, r.BlockSize, "block_size", hardLimits.blockSizeWant())
		rule.BlockSize = v
	}
	if v, ok := d.size(r.PinnedPrefix, "pinned_prefix"); ok {
		rule.PinnedPrefix = v
	}
	if s, ok := d.str(r.Class, "class"); ok {
		c, err := policy.ParseClass(s)
		if err != nil {
			d.fail(r.Class.Range(), "Invalid class", err.Error())
		}
		rule.Class = c
	}
	if p, ok := d.priority(r.Priority); ok {
		rule.Priority = p
	}
	cfg.Rules = append(cfg.Rules, rule)
}
