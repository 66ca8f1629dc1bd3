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
// Set E2E_KEEP_LOGS=1 to keep every guest's console log under
// test/.cache/logs (failing guests' logs are always kept there), and
// E2E_REPLAY=test/.cache/logs to check kept logs again without booting.
// Checks of bugs known in other packages skip with the reason unless
// E2E_STRICT=1.
package e2e
