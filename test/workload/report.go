package main

// Report is the JSON the workload prints when it ends (and answers to the
// control commands verify and quit).
type Report struct {
	PID        int           `json:"pid"`
	Arenas     []ArenaInfo   `json:"arenas"`
	Phases     []PhaseReport `json:"phases"`
	Verify     VerifyReport  `json:"verify"`
	Registered bool          `json:"registered"`
	// FillMBps is the fill rate of the first arena (pattern and checksum).
	FillMBps float64 `json:"fill_mb_per_s"`
	// HintCalls and HintBytes count calls of the uprobe hint function;
	// HintLast is the last address hinted.
	HintCalls uint64   `json:"hint_calls"`
	HintBytes uint64   `json:"hint_bytes"`
	HintLast  uint64   `json:"hint_last"`
	OK        bool     `json:"ok"`
	Errors    []string `json:"errors,omitempty"`
}

// ArenaInfo describes one arena.
type ArenaInfo struct {
	Tenant     string `json:"tenant"`
	Addr       uint64 `json:"addr"`
	Length     uint64 `json:"length"`
	BlockSize  uint64 `json:"block_size"`
	Blocks     int    `json:"blocks"`
	Generation uint64 `json:"generation"`
	RegionID   uint64 `json:"region_id,omitempty"`
}

// PhaseReport is what one phase did.
type PhaseReport struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Reads   int     `json:"reads"`
	ReadMB  float64 `json:"read_mb"`
	// Blocks are the distinct blocks the phase read (tenant:index).
	Blocks []string `json:"blocks,omitempty"`
	// Mismatches are reads whose checksum did not match.
	Mismatches int `json:"mismatches"`
	// OffFast counts blocks read while their first page was off node 0.
	OffFast int    `json:"off_fast,omitempty"`
	Note    string `json:"note,omitempty"`
}

// VerifyReport is a full verification of every arena.
type VerifyReport struct {
	Passes     int      `json:"passes"`
	Blocks     int      `json:"blocks"`
	Mismatched []string `json:"mismatched"`
	Seconds    float64  `json:"seconds"`
}

func (w *workload) info() []ArenaInfo {
	out := make([]ArenaInfo, 0, len(w.arenas))
	for _, a := range w.arenas {
		out = append(out, ArenaInfo{Tenant: a.tenant, Addr: uint64(a.addr()), Length: uint64(a.length()),
			BlockSize: uint64(a.blockSize), Blocks: a.blocks(), Generation: a.gen, RegionID: a.regionID})
	}
	return out
}
