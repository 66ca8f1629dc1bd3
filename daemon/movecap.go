package daemon

import (
	"time"

	"github.com/kvtier/kvtier/numa"
)

// Planning what the mover can execute.
//
// The planner plans migrate_bytes_per_sec x epoch bytes per epoch (the
// operator's budget), and the mover's token bucket holds one epoch's bytes
// (moverConfig), so the budget never stops a plan short. What can still
// stop it is move_pages(2) itself: the mover has until its deadline (half
// the epoch by default), and a slow host (or huge pages retried on EBUSY)
// moves less in that time than the budget allows. The moves planned last
// are then never executed, and a plan cut short every epoch leaves its
// hot blocks waiting (the moves go in plan.Plan.Order: each promotion
// after the demotions that make its room, so a cut leaves the plan done
// in pairs, never demotions without their promotions). So the daemon measures the mover's speed
// (bytes moved over the run's time) and caps each plan at what that speed
// moves in moveCapShare of the deadline (planner.SetMoveCap).

// moveCapShare is the part of the move deadline a plan is sized for; the
// rest is headroom for the speed's variation.
const moveCapShare = 0.8

// minSpeedSample is the least a run must move for its speed to count: a
// run of a few pages measures the calls' overhead, not the copy.
const minSpeedSample = 64 * 4096

// moverSpeed is an estimate of the mover's bytes per second while it runs.
type moverSpeed struct {
	bps float64 // 0: not measured yet
}

// observe adds a run's report: bytes moved over its elapsed time. A run
// cut by the deadline counts whatever it moved (the best measure of what
// fits); other runs count only when they moved enough to time.
func (s *moverSpeed) observe(rep *numa.Report, cut bool) {
	if rep == nil || rep.Elapsed <= 0 || (!cut && rep.BytesMoved < minSpeedSample) {
		return
	}
	v := float64(rep.BytesMoved) / rep.Elapsed.Seconds()
	if s.bps == 0 || cut && v < s.bps {
		s.bps = v // a cut run's speed is taken at once: the plan was too big
		return
	}
	s.bps = 0.5*s.bps + 0.5*v
}

// capFor returns the bytes a plan may move to be executed within
// deadline, at least floor; 0 before any measurement (no cap).
func (s *moverSpeed) capFor(deadline time.Duration, floor int64) int64 {
	if s.bps <= 0 {
		return 0
	}
	return max(int64(s.bps*deadline.Seconds()*moveCapShare), floor)
}

// moveCapLocked sets the planner's cap for the next plan: what the mover
// moves before its deadline, never below two of the largest blocks (a
// block larger than the cap would never be planned).
func (d *Daemon) moveCapLocked() {
	d.planner.SetMoveCap(d.speed.capFor(d.cfg.MoveDeadline(), int64(2*d.maxBlockSize())))
}

// maxBlockSize is the largest block size of the tracked regions, 0 for
// none.
func (d *Daemon) maxBlockSize() uint64 {
	var m uint64
	for _, r := range d.regions {
		m = max(m, r.blockSize)
	}
	return m
}
