// Package trace reads and writes KV block access traces and generates
// synthetic workloads. Every source is a Reader that yields one Record at a
// time, in time order, so traces of any length are replayed in constant
// memory (bounded by the longest line, plus whatever state a format
// documents, such as Mooncake's reference counts).
//
// # Synthetic workloads
//
// Generators are registered by name and built with NewWorkload and typed
// WorkloadParams, or from a spec string with NewWorkloadSpec:
//
//	r, err := trace.NewWorkload("periodic_reuse", trace.WorkloadParams{Pages: 96, Steps: 640, Period: 11, Seed: 42})
//	r, err := trace.NewWorkloadSpec("periodic_reuse:pages=96,steps=640,period=11,seed=42")
//
// A seed always yields the same trace (the generators use their own
// splitmix64 generator, not math/rand). Time is the access step: 0, 1,
// 2, ...; OpUpdate and OpFree records carry the time of the next access.
// Pages are 2048 +/- 64 scalars unless Scalars and Jitter say otherwise,
// and Record.Meta.Size is their fp16 size (2 bytes a scalar). The seed
// study's workloads are chat_continuation, periodic_reuse and
// adversarial_burst, whose defaults are the study's parameters; rag_burst,
// prefetch_friendly and mixed_locality complete its set; multi_tenant,
// reasoning and long_context model tenants, block classes and attention
// sinks. Each generator's doc comment (newChat, newPeriodic, ...) gives its
// construction; `kvtier trace workloads` lists them.
//
// # Trace files
//
//   - Mooncake's JSONL (kvcache-ai/Mooncake): Mooncake, OpenMooncake.
//   - LMBench's trace-replayer JSONL (LMCache/LMBench): NewLMBench, the
//     Mooncake format with timestamps in nanoseconds (JSON strings), lines
//     in any order and any number of hash ids.
//   - kvtier's JSONL, one Record a line: JSONL, JSONLWriter.
//   - CSV with a header row: CSV, CSVWriter.
//
// Open detects the format of a file, and reads gzip- and zstd-compressed
// files (told by their magic bytes, not their names) as they decompress
// (Decompress). Errors about the input are *ParseError values naming
// file, line (of the decompressed text), column and field, and match
// ErrMalformed with errors.Is.
//
// # Statistics
//
// Counter and Summarize compute accesses, distinct blocks, bytes and reuse
// distances in one pass; `kvtier trace stats` prints them.
package trace
