# Scenario 5 (faults): a 16 MiB fast tier for several workloads, and a
# migration rate low enough that demotions span several epochs, so the
# workload and the daemon can be killed in the middle of one.
epoch          = "500ms"
kernel_tiering = "disable"
# Created by faults.sh: the registrations survive the daemon's SIGKILL.
state_dir      = "/run/kvtier-state"

budgets {
  fast_bytes            = "16MiB"
  migrate_bytes_per_sec = "16MiB"
  pages_per_epoch       = 65536
}

sampler "sw-page-faults" {}

policy "lru" {}

api {
  socket = "/run/kvtier/kvtier.sock"
  mode   = "0660"
  group  = "65534" # the unprivileged client of faults.sh
}

metrics {
  listen = "127.0.0.1:9477"
}

log {
  level = "debug"
  json  = false
}
