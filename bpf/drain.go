//go:build linux && (amd64 || arm64)

package bpf

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/cilium/ebpf"
)

const drainBatch = 4096

// Drain implements Sampler. It swaps the epoch slot to the idle count map;
// the kernel's update of an array-of-maps returns only after every running
// program has finished (synchronize_rcu), so the old map receives no more
// events and is read and emptied here.
func (c *core) Drain(dst []Count) ([]Count, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return dst, c.closedErr("draining")
	}
	old, next := c.objs.CountsA, c.objs.CountsB
	if c.active == c.objs.CountsB {
		old, next = next, old
	}
	if err := c.objs.Epoch.Update(uint32(0), uint32(next.FD()), ebpf.UpdateAny); err != nil {
		return dst, fmt.Errorf("swapping the epoch count map: %w", err)
	}
	c.active = next
	start := len(dst)
	dst, err := c.drainBuf.drain(old, dst)
	if err != nil {
		return dst, err
	}
	slices.SortFunc(dst[start:], func(a, b Count) int {
		return cmp.Or(cmp.Compare(a.Region, b.Region), cmp.Compare(a.Block, b.Block))
	})
	c.drains++
	return dst, nil
}

// drainBuffers are the key and value buffers of batch drains, allocated
// once (a drain runs every epoch).
type drainBuffers struct {
	keys []kvtierCountKey
	vals []kvtierCountVal
}

// drain appends and deletes every entry of a quiet count map.
func (b *drainBuffers) drain(m *ebpf.Map, dst []Count) ([]Count, error) {
	if b.keys == nil {
		b.keys = make([]kvtierCountKey, drainBatch)
		b.vals = make([]kvtierCountVal, drainBatch)
	}
	keys, vals := b.keys, b.vals
	var cursor ebpf.MapBatchCursor
	for {
		n, err := m.BatchLookupAndDelete(&cursor, keys, vals, nil)
		for i := range n {
			dst = append(dst, toCount(keys[i], vals[i]))
		}
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return dst, nil
		}
		if errors.Is(err, ebpf.ErrNotSupported) {
			return drainIter(m, dst)
		}
		if err != nil {
			return dst, fmt.Errorf("draining counts: %w", err)
		}
	}
}

// drainIter is drainBuffers.drain for kernels without batch operations.
func drainIter(m *ebpf.Map, dst []Count) ([]Count, error) {
	var (
		k    kvtierCountKey
		v    kvtierCountVal
		keys []kvtierCountKey
	)
	it := m.Iterate()
	for it.Next(&k, &v) {
		dst = append(dst, toCount(k, v))
		keys = append(keys, k)
	}
	if err := it.Err(); err != nil {
		return dst, fmt.Errorf("reading counts: %w", err)
	}
	for _, k := range keys {
		if err := m.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return dst, fmt.Errorf("clearing counts: %w", err)
		}
	}
	return dst, nil
}

func toCount(k kvtierCountKey, v kvtierCountVal) Count {
	return Count{Region: k.Region, Block: k.Block, Accesses: v.Accesses,
		Reads: v.Reads, Writes: v.Writes, LastSeen: v.LastSeen, Events: v.Events}
}

// Stats implements Sampler.
func (c *core) Stats() (Stats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return Stats{}, c.closedErr("reading statistics of")
	}
	sums, err := c.statBuf.sums(c.objs.Stats)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Events: sums[0], Matched: sums[1], Outside: sums[2], Drops: sums[3], Drains: c.drains}
	if c.statsHook != nil {
		c.statsHook(&st)
	}
	return st, nil
}

// Close implements Sampler: it detaches the programs (closing links and
// perf events in reverse order of creation), then frees the maps.
func (c *core) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	for i := len(c.closers) - 1; i >= 0; i-- {
		errs = append(errs, c.closers[i].Close())
	}
	c.closers = nil
	errs = append(errs, c.objs.Prog.Close(), c.objs.kvtierMaps.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing sampler %s: %w", c.name, err)
	}
	return nil
}

// nStats is the entries of the per-CPU stats array: events, matched,
// outside, drops.
const nStats = 4

// statBuffers are the key and value buffers of the stats' batch read,
// allocated once (the daemon reads the stats every epoch).
type statBuffers struct {
	keys []uint32
	vals []uint64
}

// sums reads the per-CPU stats array and sums each entry over the CPUs:
// one batch lookup, else one lookup an entry on kernels without batch
// operations.
func (b *statBuffers) sums(m *ebpf.Map) ([nStats]uint64, error) {
	var sums [nStats]uint64
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return sums, fmt.Errorf("reading statistics: %w", err)
	}
	if len(b.vals) != nStats*ncpu {
		b.keys, b.vals = make([]uint32, nStats), make([]uint64, nStats*ncpu)
	}
	keys, vals := b.keys, b.vals
	var cursor ebpf.MapBatchCursor
	n, err := m.BatchLookup(&cursor, keys, vals, nil)
	switch {
	case errors.Is(err, ebpf.ErrNotSupported):
		return statSumsEach(m)
	case err != nil && !errors.Is(err, ebpf.ErrKeyNotExist):
		return sums, fmt.Errorf("reading statistics: %w", err)
	}
	for i := range n {
		if k := keys[i]; k < nStats {
			for _, v := range vals[i*ncpu : (i+1)*ncpu] {
				sums[k] += v
			}
		}
	}
	return sums, nil
}

// statSumsEach is statBuffers.sums one entry at a time.
func statSumsEach(m *ebpf.Map) ([nStats]uint64, error) {
	var sums [nStats]uint64
	for i := range sums {
		var per []uint64
		if err := m.Lookup(uint32(i), &per); err != nil {
			return sums, fmt.Errorf("reading statistics: %w", err)
		}
		for _, v := range per {
			sums[i] += v
		}
	}
	return sums, nil
}
