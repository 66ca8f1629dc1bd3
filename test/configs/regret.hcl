# Scenario 2 under regret_aware (same budgets and samplers as lru.hcl). The
# workload's reads reach the daemon through the uprobe on its hint function
# (Go register ABI) and through API hints.
epoch          = "500ms"
kernel_tiering = "disable"

# The comparison is of the policies' victims: blocks are promoted on one
# epoch's accesses (reuse_epochs = 0), so the cold blocks each step scans
# once press on the burst blocks as they did before the reuse rule.
planner {
  reuse_epochs = 0
}

budgets {
  fast_bytes            = "24MiB"
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
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
  level = "debug"
  json  = false
}
