# kvtier-auto-160: kvtier-auto held to the issue's fast budget (issue 11).
# fast_bytes = 160 MiB: 80 blocks of 2 MiB, more than a 32-block hot set
# but less than the regret phase's sets together (node 0 holds about 130).
epoch          = "1s"
kernel_tiering = "disable"

budgets {
  fast_bytes            = "160MiB"
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
}

sampler "auto" {}

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
