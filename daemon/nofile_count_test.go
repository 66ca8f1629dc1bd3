//go:build !benchmark

package daemon

// nofileAttempts is how many registrations TestNOFILEBinary attempts. The
// issue's check is 100,000, but a shared 2-core machine answers about
// 1,500 a second (each attempt opens or shares a pidfd and reads /proc
// three times), so 100,000 take over a minute; 20,000 reach the limit
// and stay at it just the same. go test -tags benchmark runs 100,000
// (nofile_count_bench_test.go).
const nofileAttempts = 20_000
