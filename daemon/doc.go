// Package daemon is kvtier's long-running service: it loads the HCL config,
// keeps the registry of KV regions (registered through the API or matched by
// config rules), runs the epoch loop (drain samplers, feed the policy, plan
// promotions and demotions within budgets, move pages, feed admissions and
// evictions back to the policy), serves the HTTP/JSON API on a unix socket,
// exports Prometheus metrics and records traces for `kvtier sim`.
//
// # Migration budget and the mover's deadline
//
// The planner plans at most migrate_bytes_per_sec x epoch bytes per epoch,
// and the mover, which has until its deadline (budgets.move_timeout, half
// the epoch by default; the rest is headroom for the loop), must be able
// to execute all of it. Its token bucket holds one epoch's bytes: the loop
// waits a whole epoch between two runs, so each run starts with a full
// bucket and the bandwidth budget never cuts a plan, while over any T
// seconds at most rate x (T + epoch) bytes move. What move_pages(2) itself
// manages before the deadline is measured (bytes over the run's time) and
// each plan is capped at 0.8 of the deadline at that speed, never below
// two of the largest blocks (movecap.go). So the moves planned last (the
// promotions: demotions go first) are not routinely cut, which would drain
// the fast tier epoch after epoch.
//
// # Record and replay
//
// POST /v1/trace (or a record block in the config) records what the daemon
// samples as a kvtier JSONL trace (package policy/trace): every sampled or
// hinted access with the block's metadata, metadata updates made through
// the API, and frees of blocks whose region went away. `kvtier sim --trace
// FILE --policy lru,regret_aware` replays it with any policy, so a policy
// can be judged on a host's real traffic before it is switched on. Moves
// are not recorded: a replay makes its own placement decisions. The
// recorder's doc comment (recorder.go) gives the format field by field.
//
// # Blocks materialised as needed
//
// A region of millions of blocks costs about a bit a block until its
// blocks are used (blocks.go, blockbits.go): an untouched slow block is nothing to the
// planner, untouched fast blocks are counted in the region's plan.Pool,
// and a block gets its policy.Block and planner entry (about 150 bytes
// more) when it is first sampled, hinted, demoted, pinned or marked.
//
// The request and response types of the API, and a client for it, live in
// the daemon/api package so that the CLI and test workloads can use them
// without the daemon's dependencies.
package daemon
