# /etc/kvtier/kvtier.hcl: kvtier's default configuration.
#
# Safe on any host. kvtier only touches regions that an inference engine
# registers through the API (or that a rule below matches; none is enabled).
# On a host with one NUMA node every block is already in the fast tier: the
# daemon samples and reports, moves nothing, and says so in its log. Where the
# kernel's own NUMA balancing or demotion is on, kvtier reports the conflict
# and does not move pages (kernel_tiering = "report"); set "disable" to let it
# turn them off, or "refuse" to stop instead.
# `kvtier daemon --check --config FILE` validates a config without starting.

epoch          = "1s"
kernel_tiering = "report"

budgets {
  # Fast-tier (DRAM) bytes kvtier may fill with registered KV blocks; 0 is
  # no limit beyond the node's free memory.
  fast_bytes = 0
  # Migration bandwidth and batch limits, so tiering never starves the
  # engine of memory bandwidth.
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
}

# "auto" picks, at start, the best sampler this host has: "perf" where a
# memory-sampling PMU (Intel PEBS, AMD IBS) exists, else "damon" where the
# kernel has DAMON vaddr and no other DAMON user owns its kdamonds (under
# systemd, damon needs the kernel-tunables drop-in: see the README), else none.
# The log says which and why each better one was skipped. With none, the daemon
# cannot see a process re-reading resident KV blocks: `kvtier status` reports a
# problem, kvtier_steady_state_sampling is 0, and block heat comes from API
# hints only.
# The page-fault samplers ("sw-page-faults", "fault") see first touches only.
sampler "auto" {}

# The order in which fast blocks give up their room, among those the samplers
# saw no more of than the blocks to promote. lru measured best live (see
# test/headtohead/results): regret_aware counts its horizon in policy steps
# (sampled accesses) and never ages frequency, so in the daemon a set hot long
# ago outranks one used seconds ago. `kvtier policies` lists the others.
policy "lru" {}

api {
  socket = "/run/kvtier/kvtier.sock"
  mode   = "0660"
}

metrics {
  listen = "127.0.0.1:9477"
}

log {
  level = "info"
  json  = false
}
