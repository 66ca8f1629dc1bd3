# kvtier-hints: the head-to-head benchmark's kvtier configuration (issue 11).
# systemd/kvtier.hcl with kernel tiering turned off by the daemon and the
# sampler below. The fast tier's budget is the default's: fast_bytes = 0,
# the fast node's room (what the kernel's tiering gets too).
# The workload sends hints for every block it reads.
epoch          = "1s"
kernel_tiering = "disable"

budgets {
  fast_bytes            = 0
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
  level = "info"
  json  = false
}
