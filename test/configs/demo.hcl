# The demo (make demo): a 24 MiB fast tier (DRAM, node 0) for a 64 MiB KV
# arena and a second tenant's 16 MiB, split by tenant quotas, regret-aware
# placement, the
# workload's reads seen through the uprobe on its hint function.
epoch          = "500ms"
kernel_tiering = "disable"

budgets {
  fast_bytes            = "24MiB"
  migrate_bytes_per_sec = "64MiB"
  pages_per_epoch       = 16384

  # Per-tenant quotas: a's hot set and pinned block fit in 18 MiB.
  tenant "a" {
    fast_bytes = "18MiB"
  }
  tenant "b" {
    fast_bytes = "6MiB"
  }
}

sampler "uprobe" {
  binary = "/bin/workload"
  symbol = "main.kvtierHintAccess"
  abi    = "go"
}

policy "regret_aware" {
  weight  = 20
  horizon = 4000
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
