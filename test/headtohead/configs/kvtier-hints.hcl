# kvtier-hints: the head-to-head benchmark's kvtier configuration (issue 11).
# systemd/kvtier.hcl with kernel tiering turned off by the daemon, the fast
# tier budget of the issue's guest (160 MiB: 80 blocks of 2 MiB, more than
# a 32-block hot set) and the sampler below.
# The workload sends hints for every block it reads.
epoch          = "1s"
kernel_tiering = "disable"

budgets {
  fast_bytes            = "160MiB"
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
}

sampler "damon" {}

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
