package bpf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Auto is the name configs use for the sampler OpenAuto picks.
const Auto = "auto"

// autoCandidates are the samplers OpenAuto tries, best first: those that
// see steady-state accesses without the engine's help.
var autoCandidates = []string{"perf", "damon"}

// AutoCandidates lists the samplers OpenAuto tries, best first.
func AutoCandidates() []string { return append([]string(nil), autoCandidates...) }

// AutoAttempt is what OpenAuto found out about one candidate.
type AutoAttempt struct {
	Name string // the candidate sampler
	// Err says why the candidate was skipped; nil for the one opened.
	Err error
}

// ErrNoAutoSampler: OpenAuto found no candidate this host can run. The
// error that wraps it also wraps each candidate's error.
var ErrNoAutoSampler = errors.New("no candidate available")

// autoEnv is what OpenAuto asks the host: whether a candidate can run at
// all (cheap, no side effects), then to open it.
type autoEnv interface {
	probe(name string, opts Options) error
	open(name string, opts Options) (Sampler, error)
}

// OpenAuto opens the best sampler this host has: perf where a
// memory-sampling PMU (Intel PEBS, AMD IBS op) exists, else damon where
// DAMON's sysfs interface exists, vaddr monitoring works and no other
// DAMON user owns the kdamonds. It returns the candidates it tried in
// order, the opened one last with a nil Err. Without any it returns a nil
// Sampler and an error wrapping ErrNoAutoSampler and every candidate's
// error (ErrNoPMU, ErrNotSupported, ErrBusy, ErrPermission, ...).
func OpenAuto(opts Options) (Sampler, []AutoAttempt, error) {
	return openAuto(opts, hostEnv{})
}

// openAuto is OpenAuto asking env.
func openAuto(opts Options, env autoEnv) (Sampler, []AutoAttempt, error) {
	opts = opts.withDefaults()
	var (
		tried []AutoAttempt
		errs  = []any{ErrNoAutoSampler}
	)
	for _, name := range autoCandidates {
		s, err := tryAuto(env, name, opts)
		if err == nil {
			return s, append(tried, AutoAttempt{Name: name}), nil
		}
		tried = append(tried, AutoAttempt{Name: name, Err: err})
		errs = append(errs, err)
	}
	// One line (errors.Join would break it) that wraps every error.
	format := "%w: " + strings.TrimSuffix(strings.Repeat("%w; ", len(errs)-1), "; ")
	return nil, tried, fmt.Errorf(format, errs...)
}

// tryAuto probes and opens one candidate. Its errors name the sampler.
func tryAuto(env autoEnv, name string, opts Options) (Sampler, error) {
	if err := env.probe(name, opts); err != nil {
		return nil, fmt.Errorf("sampler %s: %w", name, err)
	}
	s, err := env.open(name, opts)
	if err != nil {
		return nil, err // Open's errors say "opening sampler NAME: ..."
	}
	return s, nil
}

// hostEnv probes and opens samplers on this host.
type hostEnv struct{}

// probe checks what a candidate needs before anything is loaded: perf a
// PMU, damon DAMON's sysfs interface. Open checks the rest (vaddr, the
// tracepoint, kdamonds owned by someone else).
func (hostEnv) probe(name string, opts Options) error {
	switch name {
	case "perf":
		_, err := DetectPMU(opts.SysRoot, opts.PMU, opts.LoadLatency)
		return err
	case "damon":
		admin := filepath.Join(opts.SysRoot, "kernel/mm/damon/admin/kdamonds/nr_kdamonds")
		_, err := os.Stat(admin)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no DAMON sysfs interface (%s missing; CONFIG_DAMON_SYSFS): %w", admin, ErrNotSupported)
		}
		return err
	}
	return nil
}

func (hostEnv) open(name string, opts Options) (Sampler, error) { return Open(name, opts) }
