// Command testsummary reads `go test -json` on stdin and prints what a
// plain `go test` prints (a line per package, the output of failed tests,
// build errors), then every skipped test with its reason, so that a CI log
// shows what never ran. It exits 1 when a test, a package or a build
// failed.
//
//	go test -json ./... | go run ./internal/testsummary
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	s := newSummary(os.Stdout)
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	s.writeSkips()
	if s.failed {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, and
// the build events of go test -json).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

// skip is a skipped test and why.
type skip struct {
	pkg, test, reason string
}

// summary accumulates the events of every package.
type summary struct {
	w      io.Writer
	pkgs   map[string]*pkgState
	skips  []skip
	failed bool
}

// pkgState is one package's tests, in the order they first printed, and
// their output so far.
type pkgState struct {
	order  []string
	output map[string][]string
	fails  map[string]bool
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, pkgs: map[string]*pkgState{}}
}
