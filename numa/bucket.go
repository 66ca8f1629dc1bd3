package numa

import (
	"context"
	"fmt"
	"time"
)

// bucket is a token bucket of bytes: it refills at rate bytes per second up
// to burst. A take larger than the balance drives it negative, so a
// request larger than the burst is still served at the average rate.
type bucket struct {
	rate   float64 // bytes per second; 0 is unlimited
	burst  float64
	tokens float64
	last   time.Time
}

func newBucket(rate, burst int64) *bucket {
	return &bucket{rate: float64(rate), burst: float64(burst), tokens: float64(burst), last: time.Now()}
}

func (b *bucket) unlimited() bool { return b.rate <= 0 }

// reset changes the rate and burst at now, keeping the balance: what
// accrued at the old rate until now is added, then the balance is capped
// at the new burst. An unlimited bucket took nothing, so it starts full.
func (b *bucket) reset(rate, burst int64, now time.Time) {
	if b.unlimited() {
		b.tokens = float64(burst)
	} else {
		b.refill(now)
		b.tokens = min(b.tokens, float64(burst))
	}
	b.rate, b.burst, b.last = float64(rate), float64(burst), now
}

func (b *bucket) refill(now time.Time) {
	if b.unlimited() {
		return
	}
	b.tokens += now.Sub(b.last).Seconds() * b.rate
	b.tokens = min(b.tokens, b.burst)
	b.last = now
}

// affordable returns how many bytes, at most want, can be taken and waited
// for before ctx's deadline. Without a deadline it returns want.
func (b *bucket) affordable(ctx context.Context, want int64) int64 {
	if b.unlimited() {
		return want
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return want
	}
	now := time.Now()
	b.refill(now)
	// A deadline already past adds nothing: it takes no tokens away.
	can := b.tokens + max(dl.Sub(now), 0).Seconds()*b.rate
	if can <= 0 {
		return 0
	}
	return min(want, int64(can))
}

// wait takes n bytes, sleeping until the balance allows it or ctx is done.
// On ctx's end the bytes are given back.
func (b *bucket) wait(ctx context.Context, n int64) error {
	if b.unlimited() || n <= 0 {
		return nil
	}
	b.refill(time.Now())
	b.tokens -= float64(n)
	if b.tokens >= 0 {
		return nil
	}
	d := time.Duration(-b.tokens / b.rate * float64(time.Second))
	if err := sleepCtx(ctx, d); err != nil {
		b.tokens += float64(n)
		return fmt.Errorf("waiting %v for %d bytes of migration budget: %w", d, n, err)
	}
	return nil
}

// refund gives back n bytes that were taken but not moved.
func (b *bucket) refund(n int64) {
	if !b.unlimited() && n > 0 {
		b.tokens = min(b.tokens+float64(n), b.burst)
	}
}
