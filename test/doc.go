// Package e2e holds kvtier's emulated-CXL end-to-end tests. They boot QEMU
// guests (TCG) with two NUMA nodes, node 1 CPU-less like a CXL memory
// expander, on Debian's 6.12 and 6.1 kernels, and check from inside the
// guest what kvtier and the kernel do with a real KV workload.
//
// The tests carry the build tag e2e:
//
//	go test -tags e2e -v ./test/    (or: make e2e)
//
// test/deps.sh installs QEMU and busybox-static when missing (as root) and
// fetches the kernels into test/.cache; the tests call it themselves.
// Topologies are data (test/topologies/*.json), the guest's /init and the
// scenario scripts are test/scenarios/*.sh, and the programs that run in
// the guest are test/workload (the KV workload) and test/probe (results
// protocol, placement queries and moves). Package test/guest writes the
// initramfs, boots the guest and parses the results.
//
// One guest boot serves several checks where it can (a boot costs 20-90 s
// under TCG). Each boot's wall time is printed at the end and written to
// test/.cache/e2e-timings.json.
//
//	TestTopologyAndMoves  scenario 1 without the daemon: 6.12 cxl and cxl-hmat, 6.1 cxl
//	TestConvergence       scenario 1 with the daemon (lru, page faults and hints):
//	                      6.12 cxl-hmat, and 6.1 cxl (compatibility: no DAMON)
//	TestPolicies          2 regret (lru and regret_aware on one script, uprobe sampler)
//	                      and 3 budgets (metrics sampled over time, SIGHUP)
//	TestRules             4 pinned blocks and classes (tiered_classes), then a THP
//	                      arena under the DAMON sampler
//	TestFaults            5 workload and daemon killed mid-migration, node 1 full
//	                      (topology cxl-small: node 1 has 192 MiB)
//	TestInput             7 kernel_tiering refuse/report/disable, then 6 malformed
//	                      API requests and configs
//
// Placement is always checked from inside the guest by the probe's
// move_pages(2) queries, the daemon's behaviour over time by its
// Prometheus metrics scraped every 250-500 ms (probe scrape), and the
// data by the workload's per-block CRC-32C.
//
// Set E2E_KEEP_LOGS=1 to keep every guest's console log under
// test/.cache/logs (failing guests' logs are always kept there), and
// E2E_REPLAY=test/.cache/logs to check kept logs again without booting.
// Every check is a hard assertion: the daemon bugs the checks once skipped
// on (E2E_STRICT) are fixed.
package e2e
