package daemon

import (
	"math"
	"testing"
	"time"
)

func TestViewHeatDecay(t *testing.T) {
	for _, tc := range []struct {
		epoch time.Duration
		want  float64 // factor per epoch
	}{
		{viewHeatHalfLife, 0.5},
		{viewHeatHalfLife / 4, math.Pow(0.5, 0.25)},
		{0, 0.5},
	} {
		if got := float64(viewHeatDecay(tc.epoch)); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("viewHeatDecay(%v) = %v, want %v", tc.epoch, got, tc.want)
		}
	}
	// A block read twice keeps a heat of at least 1 for one half-life
	// whatever the epoch length, so a strip still shows it warm.
	for _, epoch := range []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, time.Second} {
		h := float32(2)
		d := viewHeatDecay(epoch)
		for range int(viewHeatHalfLife / epoch) {
			h *= d
		}
		if got := viewHeat(h); got != 1 {
			t.Errorf("epoch %v: heat 2 after one half-life reads %d, want 1", epoch, got)
		}
	}
}

func TestViewHeatRounds(t *testing.T) {
	for _, tc := range []struct {
		in   float32
		want uint32
	}{{0, 0}, {0.49, 0}, {0.5, 1}, {2.6, 3}, {1e12, math.MaxUint32}} {
		if got := viewHeat(tc.in); got != tc.want {
			t.Errorf("viewHeat(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
