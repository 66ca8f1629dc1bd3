# Scenario 6: a config with one mistake per line the daemon must name.
epoch          = "soon"
kernel_tiering = "ignore"

budgets {
  fast_bytes      = "lots"
  pages_per_epoch = -3
}

policy "no_such_policy" {}
