# Scenario 3 after the SIGHUP: 2 MiB per second binds before the pages.
epoch          = "1s"
kernel_tiering = "disable"

budgets {
  fast_bytes            = "8MiB"
  migrate_bytes_per_sec = "2MiB"
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
