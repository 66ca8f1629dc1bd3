package bpf

import (
	"errors"
	"fmt"
)

// Sentinel errors. Functions wrap them with context; test with errors.Is.
var (
	// ErrNotSupported: the kernel or the hardware lacks something a
	// sampler needs (a program type, a tracepoint, DAMON vaddr, a PMU).
	// ErrNoPMU and ErrNoBTF wrap it, so errors.Is(err, ErrNotSupported)
	// holds for them too.
	ErrNotSupported = errors.New("not supported")
	// ErrNoPMU: no hardware memory-access sampling PMU (Intel PEBS, AMD
	// IBS op) was found; the wrapping error names what was looked for.
	ErrNoPMU = fmt.Errorf("no memory-sampling PMU: %w", ErrNotSupported)
	// ErrNoBTF: the kernel exposes no BTF (/sys/kernel/btf/vmlinux),
	// which CO-RE relocations need.
	ErrNoBTF = fmt.Errorf("no kernel BTF: %w", ErrNotSupported)
	// ErrPermission: loading BPF or opening perf events was refused
	// (not root, no CAP_BPF/CAP_PERFMON, perf_event_paranoid).
	ErrPermission = errors.New("permission denied")
	// ErrBusy: another user holds the resource (DAMON kdamonds that
	// kvtier did not create). kvtier never takes it over.
	ErrBusy = errors.New("resource in use by another user")
	// ErrUnknownSampler: Open was given a name not in Names().
	ErrUnknownSampler = errors.New("unknown sampler")
	// ErrBadOption: an Options field holds a value no kernel could make
	// work (an ABI other than c or go, an unknown PMU kind): the caller's
	// mistake, not a missing kernel feature.
	ErrBadOption = errors.New("bad sampler option")
	// ErrBadRegion: a Region is empty, inverted, has a zero block size,
	// too many blocks, or reuses a watched ID.
	ErrBadRegion = errors.New("bad region")
	// ErrTooManyRegions: the watch list is full (MaxRegionsPerProcess
	// for one process, Options.MaxWatched in all, or
	// Options.MaxProcesses processes).
	ErrTooManyRegions = errors.New("too many watched regions")
	// ErrNoRegion: Unwatch was given an ID that is not watched.
	ErrNoRegion = errors.New("no such region")
	// ErrNoSymbol: the uprobe sampler found no hint symbol in the binary.
	ErrNoSymbol = errors.New("hint symbol not found")
	// ErrClosed: the sampler was closed.
	ErrClosed = errors.New("sampler closed")
)
