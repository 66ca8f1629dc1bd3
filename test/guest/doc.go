// Package guest boots emulated-CXL QEMU guests for kvtier's end-to-end
// tests: it writes initramfs images (a newc cpio writer, gzip-compressed)
// holding busybox-static, static Go binaries and a scenario's init script,
// turns a topology file (JSON: NUMA nodes, distances, HMAT figures) into a
// QEMU command line, boots a kernel from the cache that test/deps.sh fills
// under a hard time limit, and parses the machine-readable results the guest
// prints on its serial console.
//
// # Results protocol
//
// The guest's init prints BeginMarker, then one line per result,
//
//	KVTIER-RESULT NAME RC BASE64
//
// where NAME names the step, RC is the step's exit code and BASE64 is the
// standard base64 encoding of the step's standard output (usually JSON), and
// finally EndMarker followed by the scenario's exit code. Everything else on
// the console (kernel messages, stderr of the steps) is kept as the log that
// a failing test prints. ParseResults reads this format.
//
// The package has no syscalls; it drives qemu-system-x86_64 as a child
// process and never logs.
package guest
