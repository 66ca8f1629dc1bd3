//go:build benchmark

package daemon

// nofileAttempts is the 100,000 registration attempts with a low
// NOFILE (go test -tags benchmark -run TestNOFILEBinary ./daemon); over a
// minute on a shared 2-core machine.
const nofileAttempts = 100_000
