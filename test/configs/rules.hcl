# Scenario 4 (pinned blocks and classes): tiered_classes demotes
# think_complete blocks before think_active ones whatever their recency;
# pinned blocks never leave node 0. Page faults and API hints sample.
epoch          = "500ms"
kernel_tiering = "disable"

budgets {
  fast_bytes            = "24MiB"
  migrate_bytes_per_sec = "256MiB"
  pages_per_epoch       = 65536
}

sampler "sw-page-faults" {}

policy "tiered_classes" {}

# Read where the blocks are every epoch (the default is every 4): the
# scenario checks that a pinned block moved behind the daemon's back is
# back on node 0 within two seconds.
planner {
  reconcile_epochs = 1
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
