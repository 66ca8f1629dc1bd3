package numa

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func fixtureTopology(t *testing.T, tree string) *Topology {
	t.Helper()
	topo, err := ReadTopology(filepath.Join("testdata", "trees", tree, "sys"))
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func TestNewMoverValidates(t *testing.T) {
	topo := fixtureTopology(t, "cxl-2node")
	if _, err := NewMover(nil, MoverConfig{}); err == nil {
		t.Error("nil topology accepted")
	}
	if _, err := NewMover(topo, MoverConfig{Budgets: Budgets{PagesPerEpoch: -1}}); err == nil {
		t.Error("negative budget accepted")
	}
	m, err := NewMover(topo, MoverConfig{Budgets: Budgets{BytesPerSec: 100 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if m.cfg.Budgets.PagesPerCall != DefaultBatch || m.cfg.Budgets.Burst != 10<<20 {
		t.Errorf("defaults %+v", m.cfg.Budgets)
	}
}

func TestAllowance(t *testing.T) {
	topo := fixtureTopology(t, "cxl-2node")
	tests := []struct {
		name     string
		budgets  Budgets
		used     int
		deadline time.Duration // 0: none; negative: already passed
		want     int
		wantStop bool
	}{
		{"unlimited", Budgets{}, 0, 0, 100, false},
		{"epoch cap", Budgets{PagesPerEpoch: 10}, 8, 0, 2, true},
		{"epoch spent", Budgets{PagesPerEpoch: 10}, 10, 0, 0, true},
		{"rate without deadline waits", Budgets{BytesPerSec: 1, Burst: 1}, 0, 0, 100, false},
		{"rate before deadline", Budgets{BytesPerSec: int64(PageSize), Burst: int64(10 * PageSize)}, 0, time.Hour, 100, false},
		{"rate past deadline", Budgets{BytesPerSec: 1, Burst: int64(10 * PageSize)}, 0, time.Millisecond, 10, true},
		{"deadline already passed", Budgets{BytesPerSec: 1, Burst: int64(10 * PageSize)}, 0, -time.Second, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewMover(topo, MoverConfig{Budgets: tt.budgets})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.deadline != 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			e := &epoch{m: m, ctx: ctx, used: tt.used}
			n, stop := e.allowance(100)
			if n != tt.want || (stop != nil) != tt.wantStop || (stop != nil && !errors.Is(stop, ErrBudget)) {
				t.Errorf("allowance(100) = %d, %v; want %d, stop %v", n, stop, tt.want, tt.wantStop)
			}
		})
	}
}

func TestBucketRefundAndDeadline(t *testing.T) {
	b := newBucket(1000, 4000)
	if err := b.wait(context.Background(), 4000); err != nil {
		t.Fatal(err)
	}
	b.refund(3000)
	if b.tokens < 3000 || b.tokens > 4000 {
		t.Errorf("tokens %v after refund, want 3000-4000", b.tokens)
	}
	// A wait longer than the context allows gives the bytes back.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := b.tokens
	if err := b.wait(ctx, 1e6); !errors.Is(err, context.Canceled) {
		t.Errorf("wait on a cancelled context: %v", err)
	}
	if b.tokens < before {
		t.Errorf("tokens %v, want them given back (>= %v)", b.tokens, before)
	}
}

// TestMoverProcessGone: a process that exits ends its moves (ESRCH or a
// dead pidfd), and other moves in the plan still run.
func TestMoverProcessGone(t *testing.T) {
	requireRoot(t)
	topo := hostTopology(t)
	child := startChild(t)
	gone := openSkip(t, child.Process.Pid)
	self := openSkip(t, os.Getpid())
	child.Process.Kill()
	child.Wait()
	b := testBuffer(t, 8)
	m, err := NewMover(topo, MoverConfig{})
	if err != nil {
		t.Fatal(err)
	}
	node := memoryNodes(topo)[0]
	rep := m.Run(context.Background(), Plan{
		{Proc: gone, Addr: 0x400000, Len: 4 * uint64(PageSize), Node: node},
		{Proc: gone, Addr: 0x800000, Len: 4 * uint64(PageSize), Node: node},
		{Proc: self, Addr: bufAddr(b), Len: uint64(len(b)), Node: node},
		{Proc: self, Pages: nil, Node: node},
	})
	for i, out := range rep.Outcomes[:2] {
		if !errors.Is(out.Err, ErrProcessGone) || out.Skipped != 4 {
			t.Errorf("move %d of an exited process: %+v", i, out)
		}
	}
	if out := rep.Outcomes[2]; out.Err != nil || out.Moved+out.Already != 8 {
		t.Errorf("move of a live process after a dead one: %+v", out)
	}
	if out := rep.Outcomes[3]; !errors.Is(out.Err, ErrBadRange) {
		t.Errorf("empty move: %+v, want ErrBadRange", out)
	}
}

// TestMoverExpiredDeadline: a Run whose context is over returns at once
// and skips everything.
func TestMoverExpiredDeadline(t *testing.T) {
	topo := hostTopology(t)
	self := openSkip(t, os.Getpid())
	b := testBuffer(t, 32)
	m, err := NewMover(topo, MoverConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	rep := m.Run(ctx, Plan{{Proc: self, Addr: bufAddr(b), Len: uint64(len(b)), Node: memoryNodes(topo)[0]}})
	if out := rep.Outcomes[0]; out.Skipped != 32 || !errors.Is(out.Err, context.DeadlineExceeded) {
		t.Errorf("outcome %+v, want all skipped with DeadlineExceeded", out)
	}
	checkPattern(t, b)
}

// TestSetBudgets changes a mover's budgets in place: the token bucket
// keeps its balance (capped at the new burst, a debt kept), an unlimited
// bucket starts full, defaults apply, and a bad budget changes nothing.
func TestSetBudgets(t *testing.T) {
	topo := fixtureTopology(t, "cxl-2node")
	const mib = 1 << 20
	tests := []struct {
		name       string
		from, to   Budgets
		spend      int64   // bytes taken from the bucket before the change
		wantTokens float64 // balance after the change, +- what accrues meanwhile
	}{
		{"spent stays spent", Budgets{BytesPerSec: mib, Burst: mib}, Budgets{BytesPerSec: 2 * mib, Burst: 4 * mib}, mib, 0},
		{"debt kept", Budgets{BytesPerSec: mib, Burst: mib}, Budgets{BytesPerSec: mib, Burst: mib}, 3 * mib, -2 * mib},
		{"capped at a smaller burst", Budgets{BytesPerSec: mib, Burst: 4 * mib}, Budgets{BytesPerSec: mib, Burst: mib / 4}, 0, mib / 4},
		{"unlimited starts full", Budgets{}, Budgets{BytesPerSec: mib, Burst: 2 * mib}, 0, 2 * mib},
		{"to unlimited", Budgets{BytesPerSec: mib, Burst: mib}, Budgets{}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewMover(topo, MoverConfig{Budgets: tt.from})
			if err != nil {
				t.Fatal(err)
			}
			if tt.spend > 0 {
				m.bucket.tokens -= float64(tt.spend) // what wait takes, without the sleep
			}
			if err := m.SetBudgets(tt.to); err != nil {
				t.Fatal(err)
			}
			want, _ := withDefaults(tt.to)
			if got := m.Budgets(); got != want || m.cfg.Budgets != want {
				t.Errorf("budgets %+v (in force %+v), want %+v", got, m.cfg.Budgets, want)
			}
			if m.bucket.rate != float64(want.BytesPerSec) || m.bucket.burst != float64(want.Burst) {
				t.Errorf("bucket rate %v burst %v, want %d and %d", m.bucket.rate, m.bucket.burst, want.BytesPerSec, want.Burst)
			}
			if want.BytesPerSec > 0 && (m.bucket.tokens < tt.wantTokens || m.bucket.tokens > tt.wantTokens+0.1*mib) {
				t.Errorf("balance %v after the change, want %v: the bucket's state was not kept", m.bucket.tokens, tt.wantTokens)
			}
		})
	}
	t.Run("negative", func(t *testing.T) {
		m, err := NewMover(topo, MoverConfig{Budgets: Budgets{BytesPerSec: mib}})
		if err != nil {
			t.Fatal(err)
		}
		before := m.Budgets()
		if err := m.SetBudgets(Budgets{PagesPerEpoch: -1}); err == nil {
			t.Fatal("negative budget accepted")
		}
		if m.Budgets() != before {
			t.Errorf("budgets %+v after a rejected change, want %+v", m.Budgets(), before)
		}
	})
}

// TestSetBudgetsDuringRun: a change made while a Run holds the mover does
// not wait for it; the next Run applies it.
func TestSetBudgetsDuringRun(t *testing.T) {
	m, err := NewMover(fixtureTopology(t, "cxl-2node"), MoverConfig{Budgets: Budgets{PagesPerEpoch: 10}})
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock() // a Run in progress
	done := make(chan error, 1)
	go func() { done <- m.SetBudgets(Budgets{PagesPerEpoch: 20}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SetBudgets waited for the Run in progress")
	}
	if m.cfg.Budgets.PagesPerEpoch != 10 || m.Budgets().PagesPerEpoch != 20 {
		t.Errorf("during the run: in force %d, reported %d; want 10 and 20", m.cfg.Budgets.PagesPerEpoch, m.Budgets().PagesPerEpoch)
	}
	m.mu.Unlock()
	m.Run(context.Background(), nil)
	if m.cfg.Budgets.PagesPerEpoch != 20 {
		t.Errorf("after the next Run: in force %d, want 20", m.cfg.Budgets.PagesPerEpoch)
	}
}

// TestRunBytes: what a Run starting with a full bucket may move before a
// deadline, and that the mover's allowance agrees.
func TestRunBytes(t *testing.T) {
	topo := fixtureTopology(t, "cxl-2node")
	ps := int64(PageSize)
	tests := []struct {
		name    string
		budgets Budgets
		d       time.Duration
		want    int64
	}{
		{"unlimited", Budgets{}, time.Second, 0},
		{"default burst", Budgets{BytesPerSec: 100 * ps}, time.Second, 100*ps + int64(DefaultBatch)*ps},
		{"burst of one epoch", Budgets{BytesPerSec: 100 * ps, Burst: 50 * ps}, 500 * time.Millisecond, 100 * ps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewMover(topo, MoverConfig{Budgets: tt.budgets})
			if err != nil {
				t.Fatal(err)
			}
			got := m.RunBytes(tt.d)
			if got != tt.want {
				t.Fatalf("RunBytes(%v) = %d, want %d", tt.d, got, tt.want)
			}
			if got == 0 {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), tt.d)
			defer cancel()
			e := &epoch{m: m, ctx: ctx}
			// Time passes between the deadline and the check: allow a
			// page of slack.
			if n, stop := e.allowance(int(got/ps) - 1); stop != nil {
				t.Errorf("allowance(%d pages) = %d, %v: the mover cuts what RunBytes promised", got/ps-1, n, stop)
			}
			if _, stop := e.allowance(int(got/ps) + 2); !errors.Is(stop, ErrBudget) {
				t.Errorf("allowance past RunBytes: %v, want ErrBudget", stop)
			}
		})
	}
}
