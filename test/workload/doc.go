// Command workload is the KV-cache workload of kvtier's end-to-end tests. It
// is a small static Go program that also runs on the host.
//
// It allocates KV arenas of fixed-size blocks (by default 384 MiB of 2 MiB
// blocks, optionally with MADV_NOHUGEPAGE), fills every block with a
// pattern derived from its index and a generation counter and records each
// block's CRC-32C. It then runs phases:
//
//   - hot: reads a hot set of blocks for real (checksumming them) and
//     reports each read through the uprobe hint function kvtierHintAccess
//     (see bpf/doc.go: symbol main.kvtierHintAccess, Go register ABI);
//   - burst: revisits blocks that are currently off node 0 (recently
//     demoted), the regret case;
//   - class: marks the first tenant's blocks think_complete and moves the
//     hot set to other blocks;
//   - tenant2: allocates and fills a second tenant's arena and reads its
//     hot set.
//
// Every read verifies the block's checksum, and a full verification runs
// after every phase and at the end. The report is JSON on standard output.
//
// With -daemon the arenas are registered with the kvtier daemon through
// daemon/api's client. With -control the program does not run phases by
// itself but answers line commands on a unix socket (info, verify, read,
// phase NAME, refill, quit), so a test can move its pages in between.
package main
