package plan

// Source says who observed an access. Evidence of reuse (Config.Reuse)
// counts within one source: a single read that a sampler sees and the
// engine also hints (or that two samplers both see) is one read, not two.
type Source uint8

const (
	// SourceSampled is a sampler (DAMON, a PMU, page faults).
	SourceSampled Source = iota
	// SourceHint is the engine's own report of the blocks it reads (API
	// hints, the uprobe hint function): every hint is a read.
	SourceHint
	nSources
)

// Observation is what one report says of the accesses to one block.
type Observation struct {
	// Count is the accesses counted (heat).
	Count uint32
	// Windows is the number of separate observation windows the accesses
	// were seen in (DAMON aggregation intervals, hint calls); two or more
	// are evidence of reuse within one epoch. 0 means 1.
	Windows uint32
	// Source is who observed them.
	Source Source
}

// sight is what one source saw of a block: the epochs (epoch+1, 0 for
// never) of its last two observations. The windows of the last are in
// entry.windows, apart, so that the entry has no padding.
type sight struct {
	epoch uint32
	prev  uint32
}

// maxWindows is where a source's window count saturates: only whether it
// reached two matters.
const maxWindows = 255

// see adds an observation by src of windows windows in epoch cur.
func (e *entry) see(src Source, cur, windows uint32) {
	s, w := &e.sight[src], &e.windows[src]
	if s.epoch != cur {
		s.prev, s.epoch, *w = s.epoch, cur, 0
	}
	*w = uint8(min(uint32(*w)+min(windows, maxWindows), maxWindows))
}

// reused reports whether the source saw the block in epoch cur and either
// in two windows of it (windows) or in an earlier epoch at most within
// epochs before.
func (s *sight) reused(windows uint8, cur, within uint32) bool {
	if s.epoch != cur {
		return false
	}
	return windows >= 2 || (s.prev != 0 && cur-s.prev <= within)
}

// lastSeen is the epoch (epoch+1, 0 for never) in which any source last
// saw e.
func (e *entry) lastSeen() uint32 {
	var last uint32
	for _, s := range e.sight {
		last = max(last, s.epoch)
	}
	return last
}
