# kvtier-reference.hcl: every setting of kvtier's daemon config, with its
# default. Copy what you need into /etc/kvtier/kvtier.hcl and check it with
#   kvtier daemon --check --config /etc/kvtier/kvtier.hcl
# (errors name file:line:col). SIGHUP reloads policy, budgets, planner and
# rules; samplers, tiers, api, metrics and kernel_tiering need a restart.

epoch          = "1s"     # one decision epoch: drain, plan, move, feed back
scan_interval  = "10s"    # how often rules rescan /proc for new processes
kernel_tiering = "report" # kernel NUMA balancing/demotion on: report | disable | refuse
max_tenants    = 1024     # named tenants tracked at once; one more is refused (409)
state_dir      = "/var/lib/kvtier" # registrations.json: API registrations survive a restart

# Override the fast/slow class the topology gives a node (a lower kernel
# memory tier, else CPU-less = slow). `kvtier topology` shows both and why.
tiers {
  fast = [0]
  slow = [1]
}

budgets {
  fast_bytes            = "48GiB"    # fast-tier bytes of all regions (0: no limit)
  migrate_bytes_per_sec = "256MiB"   # migration bandwidth (0: no limit)
  pages_per_epoch       = 65536      # 4 KiB pages moved per epoch (0: no limit)
  move_timeout          = "750ms"    # the mover's deadline in an epoch (default: 3/4 of the epoch)

  # Fast-tier quota of a tenant: its own coldest blocks go first when it
  # needs room; other tenants' blocks only when that is not enough.
  tenant "chat" {
    fast_bytes = "32GiB"
  }
  tenant "batch" {
    fast_bytes = "8GiB"
  }
}

planner {
  decay            = 0.5   # heat kept per epoch (0..1)
  cooldown         = "2s"  # a block moved less than this ago stays (default 2 epochs; "0s" off)
  promote_min      = 1     # heat a slow block needs to be promoted
  reuse_epochs     = 8     # promote only blocks seen twice: in 2 sampler windows or hints of an epoch, or 2 epochs at most 8 apart (0: any)
  headroom         = 0     # share of the fast tier kept free for promotions by demoting cold blocks (0: none)
  reconcile_epochs = 4     # re-read placement every N epochs, up to 8N while nothing drifts (0: never)
  reconcile_pages  = 65536 # pages queried per reconcile pass (8 a block, all where a region pins)
}

# One or more samplers; all feed the same per-block counts. Without a sampler
# block the daemon runs "auto". What they see:
#   perf            sampled loads with data addresses (needs Intel PEBS or AMD IBS)
#   damon           steady-state accesses via page-table accessed bits (DAMON vaddr)
#   uprobe          the blocks an engine reports through kvtier_hint_access
#   sw-page-faults  page faults only: first touches and NUMA hinting faults; a
#   fault           process re-reading resident memory produces no events
# "auto" opens perf where a memory-sampling PMU exists, else damon where DAMON
# vaddr works, else none (API hints only), and logs why; it cannot be combined
# with perf or damon. `kvtier status` and kvtier_steady_state_sampling say when
# no sampler sees steady-state accesses. auto and damon take damon's settings:
#   sample_interval    = "100ms" # DAMON access check; default epoch/10
#   aggregate_interval = "500ms" # DAMON aggregation; default epoch/2
#   max_regions        = 4096    # DAMON regions in all: regions_per_block a block, else fewer, else runs of blocks
#   regions_per_block  = 1       # DAMON regions a block (1-64): more find partly read blocks, at more kdamond CPU
sampler "auto" {}
sampler "sw-page-faults" {
  period = 1 # sample every Nth fault
  # Every sampler also takes (defaults shown):
  #   max_blocks  = 65536 # blocks counted per epoch; more are dropped and counted
  #   max_watched = 65536 # regions watched in all (4096 of one process at most): 4 KiB of kernel memory per 128
}
sampler "uprobe" {
  abi = "c" # c: kvtier_hint_access(addr, len) in RDI/RSI; go: RAX/RBX
}

policy "regret_aware" { # `kvtier policies` lists every policy and parameter
  weight  = 6
  horizon = 24
}

# Register the KV buffers of matching processes without API calls.
rule "vllm" {
  exe           = "/usr/bin/python3"
  cmdline       = "vllm\\.entrypoints"
  mapping       = "[anon:kv_cache]"   # or min_size = "1GiB"
  block_size    = "2MiB"
  tenant        = "chat"
  class         = "think_active"      # none | think_active | think_complete | output_critical
  priority      = "normal"            # low | normal | high
  pinned_prefix = "64MiB"             # never leaves the fast tier (attention sinks, system prompt)
}

rule "sglang" {
  cgroup   = "/system.slice/sglang.service" # a cgroup v2 path; "/x/" matches below it
  min_size = "1GiB"                         # every anonymous mapping this large
  tenant   = "batch"
  priority = "low"
}

# Who may do what is decided per request from the caller's credentials
# (SO_PEERCRED): root may do everything; anyone else who reaches the socket
# may register only processes it could ptrace (its own, dumpable, or any
# with CAP_SYS_PTRACE), sees and changes only the regions it registered,
# and may not record traces.
api {
  socket   = "/run/kvtier/kvtier.sock"
  mode     = "0660"
  group    = "kvtier"  # members may use the CLI; needs CAP_CHOWN (the unit has it)
  max_body = "1MiB"
  max_regions             = 8192  # regions registered at once; one more is a 429
  max_regions_per_process = 1024  # regions of one process; one more is a 429
  read_timeout            = "30s" # reading one request, body included
  idle_timeout            = "60s" # keep-alive connections idle that long are closed
  min_block_size          = "4KiB" # block sizes a registration may use: page multiples in [min, max]
  max_block_size          = "1GiB" # (hard bounds 4KiB and 1GiB)
  max_label_bytes         = 64     # tenant and region names, printable UTF-8 (1 to 255)
}

metrics {
  listen = "127.0.0.1:9477" # "" turns the listener off
}

log {
  level = "info" # trace | debug | info | warn | error
  json  = false  # JSON lines for journald
}

# Record what the daemon samples and decides as a kvtier JSONL trace;
# `kvtier sim --trace FILE --fast-bytes SIZE --policy P` replays it.
# path records from the start (an existing file is truncated); dir is
# the only place `POST /v1/trace` (root only) may write, new files only.
record {
  path = "/var/lib/kvtier/trace.jsonl"
  dir  = "/var/lib/kvtier/traces"
}
