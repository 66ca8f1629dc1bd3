// Package result holds what the head-to-head benchmark's guest workload
// (hhwork) reports, as JSON, and the figures derived from it: seconds to
// 80% hot share after a shift and the regret phase's retention. It is pure
// Go, shared by the workload in the guest and the runner on the host.
package result

import (
	"encoding/json"
	"strconv"
)

// Point is one placement sample of the workload's focus set.
type Point struct {
	// T is seconds since the workload's measurement began (after the fill).
	T float64 `json:"t"`
	// Phase names the phase the sample belongs to (see Phase.Name).
	Phase string `json:"phase"`
	// Share is the share of the focus set's pages on node 0, or during the
	// trace replay the share of block reads served from node 0 over the
	// last window.
	Share float64 `json:"share"`
}

// Phase is one phase of the shifting hot sets.
type Phase struct {
	Name  string  `json:"name"`  // "A1", "B", "A2"
	Set   string  `json:"set"`   // "A" or "B"
	Start float64 `json:"start"` // seconds, as Point.T
	End   float64 `json:"end"`
	// EndShare is the hot share of the last sample of the phase.
	EndShare float64 `json:"end_share"`
	// MeanShare is the mean hot share over the phase's samples.
	MeanShare float64 `json:"mean_share"`
	// StartShare is the hot share of the first sample of the phase.
	StartShare float64 `json:"start_share"`
	// To80 is the seconds from the phase's start to the first sample at or
	// above 0.8, nil when the share never got there.
	To80 *float64 `json:"seconds_to_80,omitempty"`
	// Passes is how many times the phase read its whole set.
	Passes int `json:"passes"`
	// Migrated is the pages the kernel migrated during the phase
	// (pgmigrate_success), -1 when unknown.
	Migrated int64 `json:"pages_migrated"`
}

// Cycle is one revisit of the regret phase: a burst of reads of set C,
// then a gap of reads elsewhere.
type Cycle struct {
	// AtRevisit is C's share on node 0 when the burst began.
	AtRevisit float64 `json:"share_at_revisit"`
	// BurstEnd is C's share when the burst ended.
	BurstEnd float64 `json:"share_burst_end"`
	// GapMean is C's mean share over the gap after the burst.
	GapMean float64 `json:"gap_mean_share"`
	// Held is how long after the burst C's share stayed at or above half
	// its burst-end share (the whole gap when it never fell).
	Held float64 `json:"held_seconds"`
	// Gap is the gap's length in seconds.
	Gap float64 `json:"gap_seconds"`
}

// Regret is the regret phase's report.
type Regret struct {
	Blocks     []int `json:"blocks"`       // set C
	FillBlocks int   `json:"other_blocks"` // size of the set read between revisits
	// WarmShare is C's share after it was read alone for the warm-up.
	WarmShare float64 `json:"warm_share"`
	// CoolShare is C's share when the first revisit began, after the
	// cool-off; CoolSeconds how long the cool-off took (it ends early once
	// half of C's pages have left node 0).
	CoolShare   float64 `json:"cool_share"`
	CoolSeconds float64 `json:"cool_seconds"`
	Cycles      []Cycle `json:"cycles"`
	// RevisitShare is the mean AtRevisit over the cycles after the first:
	// how much of C a system kept in DRAM once it had seen C come back.
	RevisitShare float64 `json:"revisit_share"`
	// GapShare is the mean GapMean over all cycles.
	GapShare float64 `json:"gap_share"`
	// HeldShare is the summed Held over the summed gaps.
	HeldShare float64 `json:"held_share"`
	// Migrated is the pages the kernel migrated during the regret phase.
	Migrated int64 `json:"pages_migrated"`
	// StartShare and FillStartShare are C's share on node 0 when the
	// warm-up began and D's when the cool-off began: what of them a system
	// had to bring to node 0.
	StartShare     float64 `json:"start_share"`
	FillStartShare float64 `json:"other_start_share"`
}

// Replay is the trace replay's report.
type Replay struct {
	Trace    string `json:"trace"`
	Requests int    `json:"requests"`
	Reads    int    `json:"reads"` // prompt block accesses replayed
	Hits     int    `json:"hits"`  // hash ids already in the pool
	Misses   int    `json:"misses"`
	Slots    int    `json:"slots"`
	// RatePerSec is the configured pace in block reads a second;
	// Seconds the replay's length.
	RatePerSec float64 `json:"rate_per_sec"`
	Seconds    float64 `json:"seconds"`
	// Node0Share is the mean share of the read block's pages on node 0 at
	// the moment of each read (misses included: a miss writes the block).
	Node0Share float64 `json:"node0_read_share"`
	// Node0HitShare is the same over hits only.
	Node0HitShare float64 `json:"node0_hit_share"`
	// WholeBlockShare is the share of reads whose block was entirely on
	// node 0.
	WholeBlockShare float64 `json:"whole_block_share"`
	// Migrated is the pages the kernel migrated during the replay.
	Migrated int64 `json:"pages_migrated"`
	// StartNode0 are the slots with most of their pages on node 0 when
	// the replay began: the simulator's prediction starts from them.
	StartNode0 []int `json:"start_node0"`
}

// Report is the workload's one JSON document.
type Report struct {
	PID        int     `json:"pid"`
	ArenaMiB   int     `json:"arena_mib"`
	BlockKiB   int     `json:"block_kib"`
	Blocks     int     `json:"blocks"`
	Seed       int64   `json:"seed"`
	Registered bool    `json:"registered"`
	Hints      bool    `json:"hints"`
	HintBlocks uint64  `json:"hint_blocks"`
	FillSecs   float64 `json:"fill_seconds"`
	// FirstTouchShare is the arena's share of pages on node 0 after the fill.
	FirstTouchShare float64 `json:"first_touch_share"`
	SetA            []int   `json:"set_a"`
	SetB            []int   `json:"set_b"`
	Phases          []Phase `json:"phases"`
	Regret          *Regret `json:"regret,omitempty"`
	Replay          *Replay `json:"replay,omitempty"`
	Series          []Point `json:"series"`
	// LiveMismatches counts reads whose checksum did not match.
	LiveMismatches int `json:"live_mismatches"`
	// Mismatches are the blocks whose checksum did not match at the end.
	Mismatches []int `json:"mismatches"`
	Verified   int   `json:"verified_blocks"`
	// CPU is the tiering processes' CPU time when the phases ended.
	CPU *CPU `json:"cpu,omitempty"`
	// Errors are non-fatal problems (a failed hint, a failed query).
	Errors []string `json:"errors,omitempty"`
}

// PhasePages is the pages migrated during the phases (the shifts, the
// regret phase and the replay), -1 when a phase's count is unknown. It
// leaves out the fill before them and the final checksum pass after them
// (which reads every block, so a tiering system moves what it read last).
func (r *Report) PhasePages() int64 {
	var n int64
	add := func(m int64) {
		if m < 0 || n < 0 {
			n = -1
			return
		}
		n += m
	}
	for _, p := range r.Phases {
		add(p.Migrated)
	}
	if r.Regret != nil {
		add(r.Regret.Migrated)
	}
	if r.Replay != nil {
		add(r.Replay.Migrated)
	}
	return n
}

// MinPages is a lower bound of the pages a system migrates to bring every
// new set of the run to node 0 when node 0 is full: per shift (B, then A
// again, counted from A1's start) and for the regret phase's sets C and
// D, the pages of the set that were not on node 0 when it turned hot, in,
// and as many out. 0 when the report lacks the shares.
func (r *Report) MinPages() int64 {
	if r == nil || r.BlockKiB == 0 {
		return 0
	}
	per := float64(r.BlockKiB) / 4 // 4 KiB pages a block
	var n float64
	for _, p := range r.Phases {
		set := len(r.SetA)
		if p.Set == "B" {
			set = len(r.SetB)
		}
		n += 2 * (1 - p.StartShare) * float64(set) * per
	}
	if g := r.Regret; g != nil {
		n += 2 * (1 - g.StartShare) * float64(len(g.Blocks)) * per
		n += 2 * (1 - g.FillStartShare) * float64(g.FillBlocks) * per
	}
	return int64(n)
}

// ChecksumsOK reports whether every block matched at the end and every
// read matched along the way.
func (r *Report) ChecksumsOK() bool {
	return r.Verified == r.Blocks && r.Blocks > 0 && len(r.Mismatches) == 0 && r.LiveMismatches == 0
}

// MarshalJSON writes a point with its time in milliseconds and its share
// to four decimals: a run has thousands of them.
func (p Point) MarshalJSON() ([]byte, error) {
	ph, err := json.Marshal(p.Phase)
	if err != nil {
		return nil, err
	}
	return []byte(`{"t":` + strconv.FormatFloat(p.T, 'f', 3, 64) + `,"phase":` + string(ph) +
		`,"share":` + strconv.FormatFloat(p.Share, 'f', 4, 64) + `}`), nil
}
