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

# Software page-fault events work on every host with perf events; on hosts
# with PEBS or IBS use sampler "perf", on kernels with DAMON vaddr "damon".
sampler "sw-page-faults" {}

policy "regret_aware" {
  weight  = 6
  horizon = 24
}

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
