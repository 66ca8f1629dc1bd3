package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// build is one revision's test binaries.
type build struct {
	label string            // "new", or "base REV"
	root  string            // the module root the binaries run in
	bins  map[string]string // package directory -> test binary
}

// errRounds is a -rounds below one.
var errRounds = errors.New("-rounds must be at least 1")

// run builds the test binaries, runs every selected suite o.rounds times
// for each build, alternating which build goes first, and writes the
// table of figures to w.
func run(o options, w io.Writer) error {
	if o.rounds < 1 {
		return fmt.Errorf("%w, not %d", errRounds, o.rounds)
	}
	sel, err := selectSuites(o.only)
	if err != nil {
		return err
	}
	dir, cleanup, err := workDir(o.keep)
	if err != nil {
		return err
	}
	defer cleanup()
	builds, cleanBase, err := prepare(o, sel, dir)
	defer cleanBase()
	if err != nil {
		return err
	}
	t := newTable(len(builds))
	for round := range o.rounds {
		if err := runRound(o, sel, builds, round, dir, t); err != nil {
			return err
		}
	}
	if err := t.check(sel, o.small); err != nil {
		return err
	}
	writeHeader(w, o, builds)
	t.write(w, builds)
	return nil
}

// workDir returns the directory binaries and raw output go to: keep if
// set (created, and left), else a temporary one removed by cleanup.
func workDir(keep string) (string, func(), error) {
	if keep != "" {
		return keep, func() {}, os.MkdirAll(keep, 0o755)
	}
	dir, err := os.MkdirTemp("", "scalebench")
	return dir, func() { os.RemoveAll(dir) }, err
}

// prepare builds the test binaries of the working tree and, with -base,
// of the base revision checked out in a temporary worktree; cleanup
// removes that worktree.
func prepare(o options, sel []suite, dir string) ([]*build, func(), error) {
	cleanup := func() {}
	root, err := gitOutput("", "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, cleanup, fmt.Errorf("finding the module root: %w", err)
	}
	builds := []*build{{label: "new", root: root}}
	if o.base != "" {
		src := filepath.Join(dir, "base-src")
		os.RemoveAll(src)
		if _, err := gitOutput(root, "worktree", "add", "--detach", src, o.base); err != nil {
			return nil, cleanup, fmt.Errorf("checking out -base %s: %w", o.base, err)
		}
		cleanup = func() { gitOutput(root, "worktree", "remove", "--force", src) }
		builds = append(builds, &build{label: "base " + o.base, root: src})
	}
	for i, b := range builds {
		if err := compile(b, sel, filepath.Join(dir, fmt.Sprintf("build%d", i))); err != nil {
			return nil, cleanup, err
		}
	}
	return builds, cleanup, nil
}

// compile builds one test binary per package of the suites into dir.
func compile(b *build, sel []suite, dir string) error {
	b.bins = map[string]string{}
	for _, s := range sel {
		if _, ok := b.bins[s.pkg]; ok {
			continue
		}
		bin := filepath.Join(dir, strings.ReplaceAll(s.pkg, "/", "_")+".test")
		cmd := exec.Command("go", "test", "-c", "-o", bin, "./"+s.pkg)
		cmd.Dir, cmd.Env = b.root, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building the tests of %s (%s): %w\n%s", s.pkg, b.label, err, out)
		}
		b.bins[s.pkg] = bin
	}
	return nil
}

// runRound runs every suite once for each build; odd rounds run the
// builds in reverse order, so neither always goes first.
func runRound(o options, sel []suite, builds []*build, round int, dir string, t *table) error {
	order := slices.Clone(builds)
	if round%2 == 1 {
		slices.Reverse(order)
	}
	for _, s := range sel {
		for _, b := range order {
			start := time.Now()
			out, err := runSuite(o, s, b)
			raw := filepath.Join(dir, fmt.Sprintf("%s-%s-round%d.txt", strings.Fields(b.label)[0], s.name, round+1))
			if werr := os.WriteFile(raw, out, 0o644); werr != nil {
				return fmt.Errorf("keeping the output of round %d, suite %s: %w", round+1, s.name, werr)
			}
			if err != nil {
				return fmt.Errorf("round %d, suite %s, %s build: %w\n%s", round+1, s.name, b.label, err, tail(out, 2048))
			}
			res, err := parseResults(bytes.NewReader(out))
			if err != nil {
				return fmt.Errorf("round %d, suite %s, %s build, output %s: %w", round+1, s.name, b.label, raw, err)
			}
			t.add(slices.Index(builds, b), s, res)
			fmt.Fprintf(os.Stderr, "round %d/%d: %s, %s build: %d results in %s\n", round+1, o.rounds, s.name,
				b.label, len(res), time.Since(start).Round(time.Second))
		}
	}
	return nil
}

// runSuite runs one suite's benchmarks in b's package directory.
func runSuite(o options, s suite, b *build) ([]byte, error) {
	cmd := exec.Command(b.bins[s.pkg], append([]string{"-test.run", "^$"}, s.args...)...)
	cmd.Dir = filepath.Join(b.root, s.pkg)
	env := slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "KVTIER_BENCH_10M=") })
	if !o.small {
		env = append(env, "KVTIER_BENCH_10M=1")
	}
	cmd.Env = env
	return cmd.CombinedOutput()
}

// gitOutput runs git in dir ("" for the current one) and returns its
// trimmed standard output.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[len(b)-n:]
}
