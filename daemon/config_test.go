package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvtier/kvtier/policy"
)

const goodConfig = `
epoch          = "500ms"
scan_interval  = "5s"
kernel_tiering = "disable"
state_dir      = "/srv/kvtier/"

tiers {
  fast = [0]
  slow = [1, 2]
}

budgets {
  fast_bytes            = "8GiB"
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
  move_timeout          = "200ms"
  tenant "alice" { fast_bytes = "4GiB" }
  tenant "bob"   { fast_bytes = 1073741824 }
}

planner {
  decay       = 0.75
  cooldown    = "3s"
  promote_min = 2
  reuse_epochs = 3
}

sampler "sw-page-faults" { period = 1 }
sampler "uprobe" {
  binary = "/usr/bin/engine"
  symbol = "kv_read"
}

policy "lru" {}

rule "vllm" {
  exe           = "/usr/bin/python3"
  cmdline       = "vllm\\s+serve"
  mapping       = "[anon:kv_cache]"
  min_size      = "1GiB"
  block_size    = "2MiB"
  tenant        = "alice"
  class         = "think_active"
  priority      = "high"
  pinned_prefix = "4MiB"
}

rule "cg" {
  cgroup   = "/inference/"
  min_size = 1048576
  priority = 0
}

api {
  socket   = "/tmp/kvtier-test.sock"
  mode     = "0600"
  group    = "kvtier"
  max_body = "64KiB"
}

metrics { listen = "127.0.0.1:0" }

log {
  level = "debug"
  json  = true
}

record { path = "/var/lib/kvtier/trace.jsonl" }
`

func TestParseConfigGood(t *testing.T) {
	cfg, err := ParseConfig("good.hcl", []byte(goodConfig))
	if err != nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"file", cfg.File, "good.hcl"},
		{"epoch", cfg.Epoch, 500 * time.Millisecond},
		{"scan", cfg.ScanInterval, 5 * time.Second},
		{"kernel tiering", cfg.KernelTiering, KernelTieringDisable},
		{"fast nodes", len(cfg.Tiers.Fast), 1},
		{"slow nodes", len(cfg.Tiers.Slow), 2},
		{"fast bytes", cfg.Budgets.FastBytes, int64(8 << 30)},
		{"migrate", cfg.Budgets.MigrateBytesPerSec, int64(256 << 20)},
		{"pages", cfg.Budgets.PagesPerEpoch, 65536},
		{"move timeout", cfg.Budgets.MoveTimeout, 200 * time.Millisecond},
		{"move deadline", cfg.MoveDeadline(), 200 * time.Millisecond},
		{"alice", cfg.Budgets.TenantBudget("alice"), int64(4 << 30)},
		{"bob", cfg.Budgets.TenantBudget("bob"), int64(1 << 30)},
		{"nobody", cfg.Budgets.TenantBudget("carol"), int64(0)},
		{"decay", cfg.Planner.Decay, 0.75},
		{"cooldown", cfg.Planner.Cooldown, 3 * time.Second},
		{"promote min", cfg.Planner.PromoteMin, 2.0},
		{"reuse epochs", cfg.Planner.ReuseEpochs, 3},
		{"samplers", len(cfg.Samplers), 2},
		{"sampler param", cfg.Samplers[0].Params["period"], "1"},
		{"uprobe symbol", cfg.Samplers[1].Params["symbol"], "kv_read"},
		{"policy", cfg.Policy.Name, "lru"},
		{"rules", len(cfg.Rules), 2},
		{"rule exe", cfg.Rules[0].Exe, "/usr/bin/python3"},
		{"rule cmdline", cfg.Rules[0].Cmdline.MatchString("python3 -m vllm  serve x"), true},
		{"rule mapping", cfg.Rules[0].Mapping, "[anon:kv_cache]"},
		{"rule min size", cfg.Rules[0].MinSize, int64(1 << 30)},
		{"rule block", cfg.Rules[0].BlockSize, int64(2 << 20)},
		{"rule class", cfg.Rules[0].Class, policy.ClassThinkActive},
		{"rule priority", cfg.Rules[0].Priority, policy.PriorityHigh},
		{"rule pinned", cfg.Rules[0].PinnedPrefix, int64(4 << 20)},
		{"rule 2 cgroup", cfg.Rules[1].Cgroup, "/inference/"},
		{"rule 2 priority", cfg.Rules[1].Priority, policy.PriorityLow},
		{"rule 2 default block", cfg.Rules[1].BlockSize, int64(DefaultBlockSize)},
		{"socket", cfg.API.Socket, "/tmp/kvtier-test.sock"},
		{"mode", cfg.API.Mode, os.FileMode(0o600)},
		{"group", cfg.API.Group, "kvtier"},
		{"max body", cfg.API.MaxBody, int64(64 << 10)},
		{"metrics", cfg.Metrics.Listen, "127.0.0.1:0"},
		{"log level", cfg.Log.Level, "debug"},
		{"log json", cfg.Log.JSON, true},
		{"record", cfg.Record.Path, "/var/lib/kvtier/trace.jsonl"},
		{"state dir", cfg.StateDir, "/srv/kvtier"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestParseConfigEmptyIsDefault(t *testing.T) {
	cfg, err := ParseConfig("empty.hcl", nil)
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultConfig()
	if cfg.Epoch != def.Epoch || cfg.API.Socket != def.API.Socket || cfg.Metrics.Listen != DefaultMetricsAddr ||
		cfg.Policy.Name != DefaultPolicy || cfg.KernelTiering != KernelTieringReport || cfg.MoveDeadline() != def.Epoch*3/4 ||
		cfg.Planner != def.Planner || def.Planner != (PlannerConfig{Decay: 0.5, Cooldown: 2 * time.Second, PromoteMin: 1, ReuseEpochs: 8, Headroom: 0, ReconcileEpochs: 4, ReconcilePages: 1 << 16}) ||
		cfg.MaxTenants != DefaultMaxTenants {
		t.Fatalf("empty config = %+v, want the defaults %+v", cfg, def)
	}
}

// TestPlannerDefaults: without a cooldown the planner holds moved blocks
// for two epochs of the configured length; "0s" turns the hysteresis off.
func TestPlannerDefaults(t *testing.T) {
	tests := []struct {
		src      string
		decay    float64
		cooldown time.Duration
	}{
		{"epoch = \"250ms\"\n", DefaultDecay, 500 * time.Millisecond},
		{"epoch = \"250ms\"\nplanner {\n  decay = 0\n}\n", 0, 500 * time.Millisecond},
		{"planner {\n  cooldown = \"0s\"\n}\n", DefaultDecay, 0},
		{"planner {}\nepoch = \"3s\"\n", DefaultDecay, 6 * time.Second},
	}
	for _, tt := range tests {
		cfg, err := ParseConfig("p.hcl", []byte(tt.src))
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if cfg.Planner.Decay != tt.decay || cfg.Planner.Cooldown != tt.cooldown || cfg.Planner.PromoteMin != 1 {
			t.Errorf("%q: planner %+v, want decay %v cooldown %v promote_min 1", tt.src, cfg.Planner, tt.decay, tt.cooldown)
		}
	}
}

// TestParseConfigErrors checks that each bad config is reported at the
// right file:line:col with a message that says what is expected.
func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name, src string
		pos       string // "line:col" of the first error
		want      string // substring of the message
	}{
		{"syntax", "epoch = \n", "1:9", "Invalid expression"},
		{"unclosed block", "budgets {\n", "1:9", "Unclosed configuration block"},
		{"unknown attribute", "epoc = \"1s\"\n", "1:1", "Unsupported argument"},
		{"unknown block", "\nbudget {}\n", "2:1", "Unsupported block type"},
		{"bad epoch", "epoch = \"fast\"\n", "1:9", "want a duration such as"},
		{"epoch number", "epoch = 5\n", "1:9", "epoch: want a string"},
		{"epoch too long", "epoch = \"2h\"\n", "1:9", "an epoch between 1ms and 1h"},
		{"kernel tiering", "kernel_tiering = \"ignore\"\n", "1:18", "want one of refuse, disable, report"},
		{"relative state dir", "state_dir = \"kvtier\"\n", "1:13", "an absolute directory path other than /"},
		{"bad size", "budgets {\n  fast_bytes = \"lots\"\n}\n", "2:16", "want a size such as"},
		{"negative size", "budgets {\n  fast_bytes = -1\n}\n", "2:16", "non-negative"},
		{"fractional pages", "budgets {\n  pages_per_epoch = 1.5\n}\n", "2:21", "whole number between 0"},
		{"size as bool", "budgets {\n  fast_bytes = true\n}\n", "2:16", "want a size"},
		{"move timeout", "epoch = \"1s\"\nbudgets {\n  move_timeout = \"2s\"\n}\n", "3:18", "shorter than the epoch"},
		{"decay too large", "planner {\n  decay = 1\n}\n", "2:11", "decay 1: want a factor in [0, 1)"},
		{"decay negative", "planner {\n  decay = -0.5\n}\n", "2:11", "want a factor in [0, 1)"},
		{"decay string", "planner {\n  decay = \"half\"\n}\n", "2:11", "decay: want a factor"},
		{"cooldown", "planner {\n  cooldown = \"soon\"\n}\n", "2:14", "want a duration such as \"2s\""},
		{"cooldown negative", "planner {\n  cooldown = \"-1s\"\n}\n", "2:14", "between 0s and 1h"},
		{"cooldown number", "planner {\n  cooldown = 2\n}\n", "2:14", "cooldown: want a string"},
		{"promote min", "planner {\n  promote_min = 0\n}\n", "2:17", "promote_min 0: want a number of sampled accesses > 0"},
		{"reuse epochs", "planner {\n  reuse_epochs = 65\n}\n", "2:18", "reuse_epochs: want a whole number between 0 and 64"},
		{"headroom", "planner {\n  headroom = 0.6\n}\n", "2:14", "headroom"},
		{"reconcile epochs", "planner {\n  reconcile_epochs = -1\n}\n", "2:22", "reconcile_epochs: want a whole number between 0 and"},
		{"reconcile pages", "planner {\n  reconcile_pages = 0\n}\n", "2:21", "reconcile_pages: want a whole number between 1 and"},
		{"max tenants", "max_tenants = 0\n", "1:15", "max_tenants: want a whole number between 1 and"},
		{"too many tenant budgets", "max_tenants = 1\nbudgets {\n  tenant \"a\" { fast_bytes = 1 }\n  tenant \"b\" { fast_bytes = 2 }\n}\n", "4:3", "2 tenant budgets, more than max_tenants = 1"},
		{"planner unknown", "planner {\n  heat = 1\n}\n", "2:3", "Unsupported argument"},
		{"tenant without budget", "budgets {\n  tenant \"a\" {}\n}\n", "2:3", "tenant \"a\": want fast_bytes"},
		{"duplicate tenant", "budgets {\n  tenant \"a\" { fast_bytes = 1 }\n  tenant \"a\" { fast_bytes = 2 }\n}\n", "3:3", "tenant \"a\" has two budgets"},
		{"duplicate sampler", "sampler \"fault\" {}\nsampler \"fault\" {}\n", "2:1", "configured twice"},
		{"sampler param type", "sampler \"fault\" {\n  x = [1]\n}\n", "2:7", "want a string, number or bool"},
		{"sampler abi", "sampler \"uprobe\" {\n  abi = \"fortran\"\n}\n", "2:9", `sampler "uprobe": abi "fortran": want "c" or "go"`},
		{"sampler pmu", "sampler \"perf\" {\n  pmu = \"pebs2\"\n}\n", "2:9", `pmu "pebs2": want one of pebs, pebs-l3miss, ibs`},
		{"sampler period", "sampler \"perf\" {\n  period = -3\n}\n", "2:12", `period "-3": want a whole number`},
		{"sampler unknown param", "sampler \"fault\" {\n  rate = 5\n}\n", "2:3", `unknown parameter "rate" (want period,`},
		{"unknown sampler", "epoch = \"1s\"\nsampler \"bogus\" {}\n", "2:1", `sampler "bogus": want auto or one of damon, fault, perf`},
		{"auto and damon", "sampler \"auto\" {}\nsampler \"damon\" {}\n", "2:1", `sampler "auto" already tries perf and damon`},
		{"unknown policy", "policy \"nope\" {}\n", "1:1", "kvtier policies"},
		{"bad policy param", "policy \"lru\" {\n  weight = 3\n}\n", "1:1", "unknown parameter weight"},
		{"tier list", "tiers {\n  fast = 0\n}\n", "2:10", "want a list of NUMA node IDs"},
		{"tier node", "tiers {\n  slow = [1, -2]\n}\n", "2:10", "between 0 and 1023"},
		{"tier conflict", "tiers {\n  fast = [1]\n  slow = [1]\n}\n", "3:10", "both fast and slow"},
		{"rule nothing", "rule \"r\" {\n  min_size = 1\n}\n", "1:1", "want at least one of exe, cmdline or cgroup"},
		{"rule no mapping", "rule \"r\" {\n  exe = \"/bin/x\"\n}\n", "1:1", "want mapping or min_size"},
		{"rule regexp", "rule \"r\" {\n  cmdline = \"(\"\n  min_size = 1\n}\n", "2:13", "Go regular expression"},
		{"rule block size", "rule \"r\" {\n  exe = \"/x\"\n  mapping = \"m\"\n  block_size = 3000\n}\n", "4:16", "multiple of the page size"},
		{"rule class", "rule \"r\" {\n  exe = \"/x\"\n  mapping = \"m\"\n  class = \"hot\"\n}\n", "4:11", "unknown class"},
		{"rule priority", "rule \"r\" {\n  exe = \"/x\"\n  mapping = \"m\"\n  priority = 7\n}\n", "4:14", "want \"low\", \"normal\", \"high\""},
		{"socket relative", "api {\n  socket = \"k.sock\"\n}\n", "2:12", "absolute path"},
		{"mode", "api {\n  mode = \"0999\"\n}\n", "2:10", "octal file mode"},
		{"max body", "api {\n  max_body = 10\n}\n", "2:14", "between 1KiB and 64MiB"},
		{"log level", "log {\n  level = \"loud\"\n}\n", "2:11", "want one of trace, debug"},
		{"log json", "log {\n  json = \"yes please\"\n}\n", "2:11", "Unsuitable value type"},
		{"record relative", "record {\n  path = \"t.jsonl\"\n}\n", "2:10", "absolute file path"},
		{"scan interval", "scan_interval = \"1ms\"\n", "1:17", "at least 100ms"},
		{"variable", "epoch = var.x\n", "1:9", "Variables not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("bad.hcl", []byte(tt.src))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("ParseConfig(%q) = %v, want a *ConfigError", tt.src, err)
			}
			first := strings.SplitN(err.Error(), "\n", 2)[0]
			if !strings.HasPrefix(first, "bad.hcl:"+tt.pos+": ") {
				t.Errorf("first error %q, want it at bad.hcl:%s", first, tt.pos)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestParseConfigReportsEveryError(t *testing.T) {
	src := "epoch = \"x\"\nlog {\n  level = \"loud\"\n}\napi {\n  mode = \"9\"\n}\n"
	_, err := ParseConfig("multi.hcl", []byte(src))
	if err == nil {
		t.Fatal("want errors")
	}
	for _, pos := range []string{"multi.hcl:1:9:", "multi.hcl:3:11:", "multi.hcl:6:10:"} {
		if !strings.Contains(err.Error(), pos) {
			t.Errorf("errors %q lack one at %s", err, pos)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadConfig(filepath.Join(dir, "missing.hcl")); err == nil || !strings.Contains(err.Error(), "reading config") {
		t.Fatalf("LoadConfig of a missing file = %v, want a reading error", err)
	}
	path := filepath.Join(dir, "k.hcl")
	if err := os.WriteFile(path, []byte("epoch = \"2s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil || cfg.Epoch != 2*time.Second || cfg.File != path {
		t.Fatalf("LoadConfig = %+v, %v", cfg, err)
	}
}

func TestDefaultConfigFileParses(t *testing.T) {
	path := filepath.Join("..", "systemd", "kvtier.hcl")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no default config in this checkout: %v", err)
	}
	if _, err := ParseConfig(path, src); err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) && strings.Contains(err.Error(), "Unknown policy") {
			t.Skipf("the default config names a policy not registered yet: %v", err)
		}
		t.Fatalf("the shipped default config does not parse: %v", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(goodConfig))
	f.Add([]byte("epoch = \"1s\"\nbudgets { fast_bytes = \"1GiB\" }\n"))
	f.Add([]byte("rule \"r\" {\n  cmdline = \"(\"\n}\n"))
	f.Add([]byte("tiers { fast = [0, 1] }\n"))
	f.Add([]byte("planner {\n  decay = 0.5\n  cooldown = \"2s\"\n  promote_min = 1\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, err := ParseConfig("fuzz.hcl", src)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || len(ce.Diags) == 0 {
				t.Fatalf("error %v is not a non-empty *ConfigError", err)
			}
			_ = err.Error()
			return
		}
		p := cfg.Planner
		if p.Decay < 0 || p.Decay >= 1 || p.Cooldown < 0 || p.PromoteMin <= 0 {
			t.Fatalf("accepted planner block is invalid: %+v", p)
		}
		if cfg.Epoch <= 0 || cfg.API.Socket == "" || cfg.Budgets.Tenants == nil {
			t.Fatalf("accepted config is incomplete: %+v", cfg)
		}
	})
}
