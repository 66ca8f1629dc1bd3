//go:build linux && (amd64 || arm64)

package bpf

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/cilium/ebpf/link"
)

func init() { samplers["uprobe"] = openUprobe }

// uprobes attaches the hint program to the binaries of watched processes,
// once per binary (device and inode), system-wide: the program ignores
// processes without watched regions.
type uprobes struct {
	c     *core
	opts  Options
	bins  map[[2]uint64]*uprobeBin // (dev, ino) -> attachment
	byPID map[uint32][2]uint64
}

type uprobeBin struct {
	link  link.Link
	users int
}

func openUprobe(opts Options) (Sampler, error) {
	prog := kvtierProgOnHintC
	switch opts.ABI {
	case ABIC:
	case ABIGo:
		prog = kvtierProgOnHintGo
	default:
		return nil, fmt.Errorf("hint ABI %q: want %q or %q: %w", opts.ABI, ABIC, ABIGo, ErrBadOption)
	}
	c, err := load("uprobe", prog, opts, nil)
	if err != nil {
		return nil, err
	}
	if opts.Binary != "" {
		l, err := attachHint(opts.Binary, opts.Symbol, c)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.closers = append(c.closers, l)
		return c, nil
	}
	u := &uprobes{c: c, opts: opts, bins: map[[2]uint64]*uprobeBin{}, byPID: map[uint32][2]uint64{}}
	c.hooks = u
	c.closers = append(c.closers, u)
	return c, nil
}

// attachHint attaches c's program to symbol in the executable at path.
func attachHint(path, symbol string, c *core) (link.Link, error) {
	ex, err := link.OpenExecutable(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s for the hint uprobe: %w", path, err)
	}
	l, err := ex.Uprobe(symbol, c.objs.Prog, nil)
	if errors.Is(err, link.ErrNoSymbol) {
		return nil, fmt.Errorf("%s has no symbol %s (see the package docs for the hint ABI): %w", path, symbol, ErrNoSymbol)
	}
	if err != nil {
		return nil, classify(fmt.Errorf("attaching the hint uprobe to %s:%s: %w", path, symbol, err))
	}
	return l, nil
}

func (u *uprobes) addProc(pid uint32) error {
	exe := filepath.Join(u.opts.ProcRoot, strconv.FormatUint(uint64(pid), 10), "exe")
	var st syscall.Stat_t
	if err := syscall.Stat(exe, &st); err != nil {
		return fmt.Errorf("finding the binary of pid %d: %w", pid, err)
	}
	key := [2]uint64{st.Dev, st.Ino}
	b := u.bins[key]
	if b == nil {
		l, err := attachHint(exe, u.opts.Symbol, u.c)
		if err != nil {
			return fmt.Errorf("pid %d: %w", pid, err)
		}
		b = &uprobeBin{link: l}
		u.bins[key] = b
	}
	b.users++
	u.byPID[pid] = key
	return nil
}

func (u *uprobes) removeProc(pid uint32) error {
	key, ok := u.byPID[pid]
	if !ok {
		return nil
	}
	delete(u.byPID, pid)
	b := u.bins[key]
	if b.users--; b.users > 0 {
		return nil
	}
	delete(u.bins, key)
	return b.link.Close()
}

// Close detaches every uprobe.
func (u *uprobes) Close() error {
	var errs []error
	for k, b := range u.bins {
		errs = append(errs, b.link.Close())
		delete(u.bins, k)
	}
	return errors.Join(errs...)
}
