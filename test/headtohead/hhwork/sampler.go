package main

import (
	"sync"
	"time"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

// sampler records the focus set's share of pages on node 0 every interval
// in its own goroutine, labelled with the phase current at the sample.
type sampler struct {
	start time.Time
	mu    sync.Mutex
	focus *placement // nil: nothing to sample
	phase string
	pts   []result.Point
	errs  []string
	stop  chan struct{}
	done  chan struct{}
}

func newSampler(start time.Time) *sampler {
	return &sampler{start: start, stop: make(chan struct{}), done: make(chan struct{})}
}

// now is seconds since the measurement began.
func (s *sampler) now() float64 { return time.Since(s.start).Seconds() }

// set changes the focus set (nil for none) and the phase label.
func (s *sampler) set(focus *placement, phase string) {
	s.mu.Lock()
	s.focus, s.phase = focus, phase
	s.mu.Unlock()
}

// add appends a point (the trace replay reports its own series).
func (s *sampler) add(p result.Point) {
	s.mu.Lock()
	s.pts = append(s.pts, p)
	s.mu.Unlock()
}

// run samples until close; call it in a goroutine.
func (s *sampler) run(interval time.Duration) {
	defer close(s.done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.sampleOnce()
		}
	}
}

// sampleOnce queries the focus set under the lock, so a phase change
// waits for the sample that belongs to the phase before it.
func (s *sampler) sampleOnce() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.focus == nil {
		return
	}
	share, err := s.focus.node0Share()
	if err != nil {
		if len(s.errs) < 10 {
			s.errs = append(s.errs, "sampling: "+err.Error())
		}
		return
	}
	s.pts = append(s.pts, result.Point{T: s.now(), Phase: s.phase, Share: share})
}

// close stops the goroutine and returns the series and errors.
func (s *sampler) close() ([]result.Point, []string) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pts, s.errs
}
