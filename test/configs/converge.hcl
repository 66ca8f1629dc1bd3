# Daemon config of the convergence scenario: a fast-tier budget smaller
# than the workload's arena, the kernel's own tiering turned off so it does
# not fight the daemon, page-fault sampling plus the workload's API hints.
epoch          = "1s"
kernel_tiering = "disable"

budgets {
  fast_bytes            = "24MiB"
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
}

sampler "sw-page-faults" {}

policy "lru" {}

api {
  socket = "/run/kvtier/kvtier.sock"
  mode   = "0660"
}

metrics {
  listen = "127.0.0.1:9477"
}

log {
  level = "debug"
  json  = false
}
