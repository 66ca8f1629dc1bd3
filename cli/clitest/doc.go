// Package clitest helps the tests of several kvtier packages (cli, systemd)
// that run the kvtier binary or a daemon in-process: Binary builds the
// binary once per test process, and SyncBuffer collects the logs of a
// daemon's goroutines. It is imported only by tests.
package clitest
