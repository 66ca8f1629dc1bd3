package trace

import (
	"errors"
	"io"
	"math/bits"
)

// Stats summarises a trace.
type Stats struct {
	Records  int64 `json:"records"`  // every record
	Accesses int64 `json:"accesses"` // OpAccess records
	Reads    int64 `json:"reads"`    // accesses that are not writes
	Writes   int64 `json:"writes"`   // accesses that are writes
	Updates  int64 `json:"updates"`  // OpUpdate records
	Frees    int64 `json:"frees"`    // OpFree records
	// Distinct counts block allocations: accesses to a block not accessed
	// before, or not since it was freed.
	Distinct      int64 `json:"distinct_blocks"`
	Bytes         int64 `json:"bytes"`          // sum of fp16 sizes over accesses
	DistinctBytes int64 `json:"distinct_bytes"` // sum of fp16 sizes over allocations
	// Reuses counts accesses to a block accessed before (since its last
	// free): Accesses - Distinct.
	Reuses     int64   `json:"reuses"`
	ReuseRatio float64 `json:"reuse_ratio"` // Reuses / Accesses
	// MeanReuseDistance is the mean number of accesses between two
	// consecutive accesses to one block (1 = back to back).
	MeanReuseDistance float64 `json:"mean_reuse_distance"`
	// ReuseHist[k] counts reuse distances d with 2^k <= d < 2^(k+1).
	ReuseHist []int64 `json:"reuse_distance_log2_histogram"`
	Pinned    int64   `json:"pinned_accesses"`  // accesses to pinned blocks
	Shared    int64   `json:"shared_accesses"`  // accesses with RefCount > 1
	Tenants   int     `json:"tenants"`          // distinct tenants among accesses
	Sequences int64   `json:"sequences"`        // distinct Seq values among accesses
	PeakLive  int64   `json:"peak_live_blocks"` // most blocks allocated and not freed at once
	FirstTime int64   `json:"first_time"`       // Time of the first record
	LastTime  int64   `json:"last_time"`        // Time of the last record
}

// Counter accumulates Stats one record at a time. Its memory is one entry
// per live block (accessed and not freed) plus one per tenant and
// sequence.
type Counter struct {
	s       Stats
	last    map[uint64]int64 // block -> index of its last access
	tenants map[uint32]struct{}
	seqs    map[uint64]struct{}
	sumDist float64
}

// NewCounter returns an empty Counter.
func NewCounter() *Counter {
	return &Counter{last: map[uint64]int64{}, tenants: map[uint32]struct{}{}, seqs: map[uint64]struct{}{}}
}

// Add counts one record.
func (c *Counter) Add(r Record) {
	s := &c.s
	if s.Records == 0 {
		s.FirstTime = r.Time
	}
	s.Records++
	s.LastTime = r.Time
	switch r.Op {
	case OpUpdate:
		s.Updates++
		return
	case OpFree:
		s.Frees++
		delete(c.last, r.Block)
		return
	}
	i := s.Accesses
	s.Accesses++
	if r.Write {
		s.Writes++
	} else {
		s.Reads++
	}
	s.Bytes += r.Meta.Size
	if r.Meta.Pinned {
		s.Pinned++
	}
	if r.Meta.RefCount > 1 {
		s.Shared++
	}
	c.tenants[r.Meta.Tenant] = struct{}{}
	c.seqs[r.Meta.Seq] = struct{}{}
	if prev, ok := c.last[r.Block]; ok {
		d := i - prev
		s.Reuses++
		c.sumDist += float64(d)
		k := bits.Len64(uint64(d)) - 1
		for len(s.ReuseHist) <= k {
			s.ReuseHist = append(s.ReuseHist, 0)
		}
		s.ReuseHist[k]++
	} else {
		s.Distinct++
		s.DistinctBytes += r.Meta.Size
	}
	c.last[r.Block] = i
	s.PeakLive = max(s.PeakLive, int64(len(c.last)))
}

// Stats returns the summary of the records added so far.
func (c *Counter) Stats() Stats {
	s := c.s
	s.ReuseHist = append([]int64{}, s.ReuseHist...)
	s.Tenants, s.Sequences = len(c.tenants), int64(len(c.seqs))
	if s.Accesses > 0 {
		s.ReuseRatio = float64(s.Reuses) / float64(s.Accesses)
	}
	if s.Reuses > 0 {
		s.MeanReuseDistance = c.sumDist / float64(s.Reuses)
	}
	return s
}

// Summarize reads r to the end and returns its Stats. On an error it
// returns the Stats of the records before it.
func Summarize(r Reader) (Stats, error) {
	c := NewCounter()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return c.Stats(), nil
		}
		if err != nil {
			return c.Stats(), err
		}
		c.Add(rec)
	}
}
