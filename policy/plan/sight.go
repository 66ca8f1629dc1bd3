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
// never) of its last two observations and the windows of the last.
type sight struct {
	epoch   uint32
	prev    uint32
	windows uint32
}

// see adds an observation of windows windows in epoch cur.
func (s *sight) see(cur, windows uint32) {
	if s.epoch != cur {
		s.prev, s.epoch, s.windows = s.epoch, cur, 0
	}
	s.windows += windows
}

// reused reports whether the source saw the block in epoch cur and either
// in two windows of it or in an earlier epoch at most within epochs before.
func (s *sight) reused(cur, within uint32) bool {
	if s.epoch != cur {
		return false
	}
	return s.windows >= 2 || (s.prev != 0 && cur-s.prev <= within)
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
