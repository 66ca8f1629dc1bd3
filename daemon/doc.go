// Package daemon is kvtier's long-running service: it loads the HCL config,
// keeps the registry of KV regions (registered through the API or matched by
// config rules), runs the epoch loop (drain samplers, feed the policy, plan
// promotions and demotions within budgets, move pages, feed admissions and
// evictions back to the policy), serves the HTTP/JSON API on a unix socket,
// exports Prometheus metrics and records traces for `kvtier sim`.
//
// The request and response types of the API, and a client for it, live in
// the daemon/api package so that the CLI and test workloads can use them
// without the daemon's dependencies.
package daemon
