# Scenario 7: the kernel's NUMA balancing is on (Debian's default) and
# kernel_tiering = "report". input.sh derives the "refuse" and "disable"
# configs from this one by replacing the kernel_tiering line.
epoch          = "500ms"
kernel_tiering = "report"

budgets {
  fast_bytes            = "8MiB"
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
}

sampler "sw-page-faults" {}

policy "lru" {}

api {
  socket = "/run/kvtier/kvtier.sock"
  mode   = "0660"
  max_body = "64KiB"
}

metrics {
  listen = "127.0.0.1:9477"
}

log {
  level = "debug"
  json  = false
}
