package sim

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// randomTrace returns n records over keys blocks, Zipf-skewed, with frees,
// metadata updates, pinned blocks and tenants when mixed is set.
func randomTrace(seed uint64, n, keys int, mixed bool) []trace.Record {
	r := rand.New(rand.NewPCG(seed, 7))
	z := rand.NewZipf(r, 1.1, 1, uint64(keys-1))
	out := make([]trace.Record, n)
	for i := range out {
		rec := trace.Record{Time: int64(i), Block: z.Uint64()*7919 + 3, Meta: policy.Meta{Size: 4096}}
		if mixed {
			switch x := r.IntN(100); {
			case x < 4:
				rec.Op = trace.OpFree
			case x < 7:
				rec.Op = trace.OpUpdate
			}
			rec.Meta.Pinned = rec.Block%13 == 0 && r.IntN(3) > 0
			rec.Meta.Tenant = uint32(rec.Block % 3)
		}
		out[i] = rec
	}
	return out
}

// TestCompactMatchesEngine replays random traces through the compact
// engine (CompareStream) and the engine (Prepare, CompareWith) and wants
// equal results, field for field, for every compact policy.
func TestCompactMatchesEngine(t *testing.T) {
	pols := []string{"lru", "fifo", "sieve", "arc", "s3fifo", "s3fifo:small=0.25,threshold=2"}
	tests := []struct {
		name     string
		recs     []trace.Record
		capacity int
		quant    Quant
		horizon  int64
	}{
		{"plain", randomTrace(1, 20000, 3000, false), 200, FP16, 0},
		{"mixed", randomTrace(2, 20000, 3000, true), 150, INT4, 100},
		{"tiny", randomTrace(3, 5000, 50, true), 3, FP8, 0},
		{"one", randomTrace(4, 2000, 400, true), 1, FP16, 5},
		{"empty", nil, 10, FP16, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Mode: ModeBlocks, CapacityBlocks: tt.capacity, Quant: tt.quant, Horizon: tt.horizon, Seed: 3}
			open := func() (trace.Reader, error) { return &sliceReader{recs: tt.recs}, nil }
			refs := References{LRU: true}
			got, err := CompareStream(cfg, pols, refs, "test", open)
			if err != nil {
				t.Fatal(err)
			}
			want, err := CompareWith(cfg, pols, refs, prepared(t, tt.recs))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("%s:\n got %+v\nwant %+v", want[i].Policy, got[i], want[i])
				}
			}
		})
	}
}

func TestStreamable(t *testing.T) {
	blocks := Config{Mode: ModeBlocks, CapacityBlocks: 10}
	tests := []struct {
		cfg  Config
		pols []string
		refs References
		want bool
	}{
		{blocks, []string{"lru", "arc", "s3fifo", "sieve", "fifo"}, References{}, true},
		{blocks, []string{"arc"}, References{LRU: true}, true},
		{blocks, []string{"arc"}, AllReferences, false},
		{blocks, []string{"lfu"}, References{}, false},
		{blocks, []string{"lru:nope=1"}, References{}, false},
		{Config{Mode: ModeBlocks, CapacityBlocks: 10, Prefetch: 1}, []string{"lru"}, References{}, false},
		{Config{Mode: ModeBlocks}, []string{"lru"}, References{}, false},
		{Config{Hierarchy: twoTiers}, []string{"lru"}, References{}, false},
	}
	for _, tt := range tests {
		if got := Streamable(tt.cfg, tt.pols, tt.refs); got != tt.want {
			t.Errorf("Streamable(%+v, %v, %v) = %v, want %v", tt.cfg, tt.pols, tt.refs, got, tt.want)
		}
	}
}

// TestStreamErrors checks that a trace that cannot be read gives Prepare's
// error and no results.
func TestStreamErrors(t *testing.T) {
	cfg := Config{Mode: ModeBlocks, CapacityBlocks: 10}
	bad := "time,block,op\n1,2,access\n2,x,access\n"
	open := func() (trace.Reader, error) { return trace.NewCSV(strings.NewReader(bad), "bad.csv"), nil }
	rs, err := CompareStream(cfg, []string{"lru"}, References{}, "bad.csv", open)
	_, perr := Prepare("bad.csv", open)
	if rs != nil || err == nil || perr == nil || err.Error() != perr.Error() {
		t.Errorf("got %v, %v; want Prepare's error %v", rs, err, perr)
	}
	failing := errors.New("no such trace")
	if _, err := CompareStream(cfg, []string{"lru"}, References{}, "x", func() (trace.Reader, error) {
		return nil, failing
	}); !errors.Is(err, failing) {
		t.Errorf("open error: got %v", err)
	}
	if _, err := CompareStream(cfg, []string{"lfu"}, References{}, "x", nil); !errors.Is(err, ErrBadConfig) {
		t.Errorf("lfu: got %v, want ErrBadConfig", err)
	}
	// Nothing to run: refused before the trace is read (no engine would
	// hand the reader its batches back).
	if _, err := CompareStream(cfg, nil, References{}, "x", nil); !errors.Is(err, ErrBadConfig) {
		t.Errorf("no policy, no reference: got %v, want ErrBadConfig", err)
	}
}

// panicky is a compact policy that panics on its first access.
type panicky struct{ cLRU }

func (p *panicky) access(int32) { panic("boom") }

// TestStreamPolicyPanic checks that a compact policy's panic is its run's
// error, as Run reports one, and that the other runs still give results.
func TestStreamPolicyPanic(t *testing.T) {
	cfg := Config{Mode: ModeBlocks, CapacityBlocks: 4}
	recs := randomTrace(5, 100, 20, false)
	for _, tt := range []struct {
		asked, bad int // policies asked (the rest are references), the engine that panics
		rows       int
	}{{2, 0, 1}, {1, 1, 0}} {
		runs := []string{"lru", "fifo"}
		engines := make([]*cengine, len(runs))
		for i, p := range runs {
			c := cfg
			c.Policy = p
			engines[i], _, _ = newCEngine(&c)
			engines[i].name = p
		}
		engines[tt.bad].pol = &panicky{cLRU{s: &engines[tt.bad].s, l: newIList()}}
		if err := replayStream(&sliceReader{recs: recs}, "t", engines); err != nil {
			t.Fatal(err)
		}
		rs, err := streamResults(cfg, runs, tt.asked, "t", engines)
		if !errors.Is(err, ErrPolicyPanic) || len(rs) != tt.rows {
			t.Errorf("asked %d, engine %d panics: %d rows, error %v; want %d rows and ErrPolicyPanic",
				tt.asked, tt.bad, len(rs), err, tt.rows)
		}
	}
}
