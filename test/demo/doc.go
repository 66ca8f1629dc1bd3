// Command demo is kvtier's demo (make demo, or go run ./test/demo from the
// repository root, as root on Debian): it installs QEMU and fetches a
// Debian 6.12 kernel when they are missing (test/deps.sh), boots a guest
// with two NUMA nodes (node 1 a CPU-less, HMAT-described CXL expander),
// starts the kvtier daemon and a KV-cache workload in it, and tells what
// happens as the guest reports it: the topology kvtier sees, heat strips
// of the KV arena before and after each workload phase, migrations,
// regret events, budget use, and whether every block's checksum still
// matches at the end. It takes about two minutes under TCG.
package main
