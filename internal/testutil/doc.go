// Package testutil helps the tests of several kvtier packages (cli,
// daemon, systemd) that run the kvtier binary, a daemon in-process or a
// KV workload in a child process:
//
//   - Main is a TestMain that lets the test binary double as a child
//     process and removes what Binary built;
//   - Binary builds the kvtier binary once per test process;
//   - RunDaemon runs an in-process daemon until the test ends, and
//     SyncBuffer collects the logs of its goroutines;
//   - RunWorkload is the KV workload child a test binary becomes when
//     WorkloadEnv is set, and StartWorkload starts one and reads its
//     buffer's address; AlignedBuffer and Touch give a test such a buffer
//     in its own process.
//
// It imports nothing from kvtier, so every package's tests may use it, and
// it is imported only by tests.
package testutil
