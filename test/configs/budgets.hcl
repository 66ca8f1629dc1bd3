# Scenario 3: budgets that bind. An 8 MiB fast tier for a 32 MiB arena
# that starts on node 0, at most 1024 pages (two 2 MiB blocks) per epoch.
# budgets-tight.hcl replaces this file before a SIGHUP.
epoch          = "1s"
kernel_tiering = "disable"

budgets {
  fast_bytes            = "8MiB"
  migrate_bytes_per_sec = "6MiB"
  pages_per_epoch       = 1024
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
