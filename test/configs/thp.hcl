# The THP part of scenario 4 with the DAMON sampler: a 48 MiB arena of
# 2 MiB huge pages over a 24 MiB fast tier.
epoch          = "500ms"
kernel_tiering = "disable"

budgets {
  fast_bytes            = "24MiB"
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
}

sampler "damon" {}

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
