//go:build linux && (amd64 || arm64)

package bpf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

func init() {
	samplers["perf"] = openPerf
	samplers["sw-page-faults"] = openSWFaults
}

// openPerf samples memory accesses with the host's PMU (PEBS or IBS).
func openPerf(opts Options) (Sampler, error) {
	pmu, err := DetectPMU(opts.SysRoot, opts.PMU, opts.LoadLatency)
	if err != nil {
		return nil, err
	}
	period := opts.SamplePeriod
	if period == 0 {
		period = 10007
	}
	attr := unix.PerfEventAttr{
		Type:   pmu.Type,
		Config: pmu.Config,
		Ext1:   pmu.Config1,
		Sample: period,
		Bits:   unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv | 2<<15, // precise_ip = 2
	}
	kind := uint32(0)
	switch pmu.Kind {
	case "ibs":
		// IBS takes periods in units of 16 ops, and no precise_ip.
		attr.Sample = max(period&^0xf, 0x10)
		attr.Bits = unix.PerfBitExcludeHv
	default:
		kind = 1 // PEBS samples loads
	}
	return openPerfEvents("perf", opts, attr, kind)
}

// openSWFaults runs the perf program on the software page-fault event.
func openSWFaults(opts Options) (Sampler, error) {
	period := opts.SamplePeriod
	if period == 0 {
		period = 1
	}
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_PAGE_FAULTS,
		Sample: period,
	}
	return openPerfEvents("sw-page-faults", opts, attr, 0)
}

// openPerfEvents opens attr on every CPU (all processes) and attaches the
// perf program to each event. It sets what the program needs of every
// event: the sampled address (PERF_SAMPLE_ADDR).
func openPerfEvents(name string, opts Options, attr unix.PerfEventAttr, kind uint32) (Sampler, error) {
	cpus := opts.CPUs
	if len(cpus) == 0 {
		var err error
		if cpus, err = onlineCPUs(opts.SysRoot); err != nil {
			return nil, fmt.Errorf("listing CPUs: %w", err)
		}
	}
	c, err := load(name, kvtierProgOnPerf, opts, map[string]any{kvtierVarPerfKind: kind})
	if err != nil {
		return nil, err
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	attr.Sample_type = unix.PERF_SAMPLE_ADDR
	for _, cpu := range cpus {
		fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			c.Close()
			err = fmt.Errorf("perf_event_open(type %d, config %#x) on cpu %d: %w", attr.Type, attr.Config, cpu, err)
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EOPNOTSUPP) {
				return nil, fmt.Errorf("%w (%w)", err, ErrNotSupported)
			}
			return nil, classify(err)
		}
		f := os.NewFile(uintptr(fd), fmt.Sprintf("perf-event-cpu%d", cpu))
		c.closers = append(c.closers, f)
		l, err := attachPerf(fd, c.objs.Prog)
		if err != nil {
			c.Close()
			return nil, classify(fmt.Errorf("attaching to the perf event on cpu %d: %w", cpu, err))
		}
		c.closers = append(c.closers, l)
	}
	return c, nil
}

// attachPerf attaches prog to a perf event with a BPF link (5.15+) or,
// on older kernels, the PERF_EVENT_IOC_SET_BPF ioctl.
func attachPerf(fd int, prog *ebpf.Program) (io.Closer, error) {
	l, err := link.AttachRawLink(link.RawLinkOptions{Target: fd, Program: prog, Attach: ebpf.AttachPerfEvent})
	if err == nil {
		return l, nil
	}
	if !errors.Is(err, ebpf.ErrNotSupported) && !errors.Is(err, unix.EINVAL) {
		return nil, err
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, prog.FD()); err != nil {
		return nil, fmt.Errorf("PERF_EVENT_IOC_SET_BPF: %w", err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		return nil, fmt.Errorf("PERF_EVENT_IOC_ENABLE: %w", err)
	}
	// Closing the perf event (already in closers) detaches the program.
	return nopCloser{}, nil
}

// nopCloser stands for an attachment that closing the perf event undoes.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }
