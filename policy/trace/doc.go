// Package trace reads and writes KV block access traces and generates
// synthetic workloads. Every source is a Reader that yields one Record at a
// time, so traces of any length are replayed in constant memory.
package trace
