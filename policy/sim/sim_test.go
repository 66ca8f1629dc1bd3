package sim

import (
	"errors"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// sliceReader replays records from memory.
type sliceReader struct {
	recs []trace.Record
	i    int
}

func (s *sliceReader) Next() (trace.Record, error) {
	if s.i >= len(s.recs) {
		return trace.Record{}, io.EOF
	}
	s.i++
	return s.recs[s.i-1], nil
}

// accesses builds a trace of accesses of size-byte blocks.
func accesses(size int64, keys ...uint64) []trace.Record {
	var out []trace.Record
	for i, k := range keys {
		out = append(out, trace.Record{Time: int64(i), Block: k, Meta: policy.Meta{Size: size}})
	}
	return out
}

func prepared(t *testing.T, recs []trace.Record) *Trace {
	t.Helper()
	tr, err := Prepare("test", func() (trace.Reader, error) { return &sliceReader{recs: recs}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// twoTiers: tier 0 holds two 100-byte blocks, read/write 1 ms, 100 B/ms;
// tier 1 read/write 2 ms, 50 B/ms.
var twoTiers = Hierarchy{Preset: "test", Tiers: []Tier{
	{"fast", 200, 1, 1, 100},
	{"slow", 1000, 2, 2, 50},
}}

func near(a, b float64) bool { return math.Abs(a-b) <= 0.011*math.Max(math.Abs(a), math.Abs(b)) }

// Hand-worked cache-mode run of accesses 1 2 1 3 2 (see the comments for
// each access's latency).
func TestCacheModeCosts(t *testing.T) {
	tr := prepared(t, accesses(100, 1, 2, 1, 3, 2))
	r, err := Run(Config{Policy: "lru", Hierarchy: twoTiers}, tr)
	if err != nil {
		t.Fatal(err)
	}
	// 1: cold, 4x1 + 100/(100/2) = 6.  2: cold, 6.  1: hit, 1 + 100/100 = 2.
	// 3: cold 6 + demote 2 (1 + 2 + 100/50 = 5) = 11.
	// 2: from tier 1 (2 + 1 + 2 = 5) + demote 1 (5) = 10.
	if !near(r.MeanLatencyMs, 7) || !near(r.P99LatencyMs, 11) {
		t.Errorf("latency mean %g p99 %g, want 7 and 11", r.MeanLatencyMs, r.P99LatencyMs)
	}
	want := Result{Accesses: 5, Hits: []int64{1, 1}, Misses: 3, Evictions: 2, BytesDemand: 600, Repromotions: 1}
	got := Result{Accesses: r.Accesses, Hits: r.Hits, Misses: r.Misses, Evictions: r.Evictions,
		BytesDemand: r.BytesDemand, Repromotions: r.Repromotions}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if r.FastHitRatio != 0.2 || r.RepromotionRate != 0.5 || !near(r.Utilisation, 0.9) || r.Fairness != 1 {
		t.Errorf("hit ratio %g repromotion %g utilisation %g fairness %g", r.FastHitRatio,
			r.RepromotionRate, r.Utilisation, r.Fairness)
	}
}

// A three-tier cascade: tier 1 holds one block, so the second demotion
// pushes the first one down to tier 2.
func TestCacheModeCascade(t *testing.T) {
	h := Hierarchy{Tiers: []Tier{{"a", 100, 0, 0, 100}, {"b", 100, 0, 0, 100}, {"c", 100, 0, 0, 100}}}
	tr := prepared(t, accesses(100, 1, 2, 3, 1))
	r, err := Run(Config{Policy: "lru", Hierarchy: h}, tr)
	if err != nil {
		t.Fatal(err)
	}
	// Block 1 fell to tier 2 when 3 came in; its access is a tier-2 hit.
	if !reflect.DeepEqual(r.Hits, []int64{0, 0, 1}) || r.Misses != 3 {
		t.Errorf("hits %v misses %d", r.Hits, r.Misses)
	}
}

func TestBlocksModeLRUAndBelady(t *testing.T) {
	tr := prepared(t, accesses(0, 1, 2, 1, 3, 2, 1))
	for pol, hits := range map[string]int64{"lru": 1, "belady": 2} {
		r, err := Run(Config{Policy: pol, Mode: ModeBlocks, CapacityBlocks: 2}, tr)
		if err != nil {
			t.Fatal(err)
		}
		if r.Hits[0] != hits || r.Misses != 6-hits {
			t.Errorf("%s: hits %d misses %d, want %d", pol, r.Hits[0], r.Misses, hits)
		}
	}
}

// Hand-worked tiering run, epochs of 2 accesses: 1 and 2 fill the fast
// tier, 3 lands in the slow one and is read there twice, the epoch's plan
// swaps it with 1 (least recently used), and 1 is then read in the slow
// tier: a re-promotion.
func TestTieringMode(t *testing.T) {
	tr := prepared(t, accesses(100, 1, 2, 3, 3, 1))
	r, err := Run(Config{Policy: "lru", Hierarchy: twoTiers, Mode: ModeTiering, Epoch: 2}, tr)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Hits, []int64{0, 2}) || r.Misses != 3 || r.Evictions != 1 ||
		r.Epochs != 2 || r.Repromotions != 1 {
		t.Errorf("got %+v", r)
	}
	// cold 6, 6, cold in tier 1: 4x2 + 100/25 = 12, slow read 2 + 2 = 4, slow read 4.
	if !near(r.MeanLatencyMs, (6+6+12+4+4)/5.0) {
		t.Errorf("mean latency %g", r.MeanLatencyMs)
	}
	// Migrations: 1 down and 3 up, 5 ms each.
	if r.MigrationMs != 10 || r.BytesDemand != 500 {
		t.Errorf("migration %g ms, %d bytes", r.MigrationMs, r.BytesDemand)
	}
}

func TestPrepareNext(t *testing.T) {
	recs := accesses(0, 5, 6, 5)
	recs = append(recs, trace.Record{Op: trace.OpFree, Block: 6}, trace.Record{Block: 5})
	tr := prepared(t, recs)
	if tr.next != nil {
		t.Errorf("next uses computed by Prepare: %v", tr.next)
	}
	next, err := tr.nextUses()
	if want := []uint32{2, never, 3, never, never}; err != nil || !reflect.DeepEqual(next, want) {
		t.Errorf("next %v (%v), want %v", next, err, want)
	}
	if tr.Accesses() != 4 || tr.Blocks() != 2 || tr.Records() != 5 {
		t.Errorf("accesses %d blocks %d records %d", tr.Accesses(), tr.Blocks(), tr.Records())
	}
}

// Bélády never has fewer unit-size hits than LRU, on a seed workload.
func TestCompareHeadroom(t *testing.T) {
	spec := "adversarial_burst:seed=7"
	tr, err := Prepare(spec, func() (trace.Reader, error) { return trace.NewWorkloadSpec(spec) })
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Compare(Config{Mode: ModeBlocks, CapacityBlocks: 16}, []string{"fifo"}, tr)
	if err != nil {
		t.Fatal(err)
	}
	lru, bel := rs[1], rs[2]
	if lru.Policy != "lru" || bel.Policy != "belady" || bel.FastHitRatio <= lru.FastHitRatio {
		t.Fatalf("lru %g belady %g", lru.FastHitRatio, bel.FastHitRatio)
	}
	if *bel.Headroom != 1 || *lru.Headroom != 0 || rs[0].Headroom == nil {
		t.Errorf("headroom lru %v belady %v fifo %v", *lru.Headroom, *bel.Headroom, rs[0].Headroom)
	}
}

func TestConfigErrors(t *testing.T) {
	tr := prepared(t, accesses(0, 1))
	for name, cfg := range map[string]Config{
		"blocks":  {Policy: "lru", Mode: ModeBlocks},
		"policy":  {Policy: "nope", Hierarchy: twoTiers},
		"sample":  {Policy: "lru", Hierarchy: twoTiers, SampleRate: 2},
		"tiers":   {Policy: "lru"},
		"offline": {Policy: "belady", Hierarchy: twoTiers, Mode: ModeTiering},
	} {
		if _, err := Run(cfg, tr); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := NewHierarchy("kvlab", "tiny"); !errors.Is(err, ErrBadConfig) {
		t.Errorf("scenario: %v", err)
	}
}

func TestPresets(t *testing.T) {
	h, err := NewHierarchy("kvlab", "constrained")
	if err != nil {
		t.Fatal(err)
	}
	if h.Tiers[0].Capacity != 128_000/6 || h.Tiers[3].Capacity != 8_000_000/6 {
		t.Errorf("constrained capacities %+v", h.Tiers)
	}
	h, _ = NewHierarchy("cxl-ssd", "base")
	if len(h.Tiers) != 3 || h.Validate() != nil {
		t.Errorf("cxl-ssd %+v", h)
	}
}

func TestHistAndJain(t *testing.T) {
	var h hist
	for i := 1; i <= 100; i++ {
		h.add(float64(i))
	}
	if q := h.quantile(0.99); !near(q, 99) {
		t.Errorf("p99 %g", q)
	}
	if j := jain([]float64{1, 1}); j != 1 {
		t.Errorf("jain equal %g", j)
	}
	if j := jain([]float64{1, 0}); j != 0.5 {
		t.Errorf("jain one of two %g", j)
	}
}

// limited reads the first n records of r.
type limited struct {
	r trace.Reader
	n int
}

func (l *limited) Next() (trace.Record, error) {
	if l.n <= 0 {
		return trace.Record{}, io.EOF
	}
	l.n--
	return l.r.Next()
}

// TestEveryPolicyOnMooncake replays the start of the embedded Mooncake
// trace (shared prefix blocks read by many requests, each time with that
// request's Seq and Pos; decode blocks freed) through every registered
// policy in blocks and cache mode. windowed_recency used to panic here and
// streaming to leak sequence state, when a resident shared block arrived
// with another request's Seq.
func TestEveryPolicyOnMooncake(t *testing.T) {
	n := 60000
	if testing.Short() {
		n = 15000
	}
	open := MooncakeSample(trace.MooncakeOptions{FreeDecode: true})
	tr, err := Prepare("mooncake_head", func() (trace.Reader, error) {
		r, err := open()
		return &limited{r: r, n: n}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHierarchy("cxl", "medium")
	if err != nil {
		t.Fatal(err)
	}
	// 2,000 blocks of 512 tokens of Llama-2-70B in the fast tier.
	h.Tiers[0].Capacity = 2000 * 512 * trace.KVBytesLlama2_70B
	for _, info := range policy.List() {
		for _, cfg := range []Config{
			{Policy: info.Name, Mode: ModeBlocks, CapacityBlocks: 500},
			{Policy: info.Name, Mode: ModeCache, Hierarchy: h},
		} {
			r, err := Run(cfg, tr)
			if err != nil {
				t.Errorf("%s in %s mode: %v", info.Name, cfg.Mode, err)
				continue
			}
			if r.Accesses != int64(tr.Accesses()) {
				t.Errorf("%s in %s mode: %d accesses, trace has %d", info.Name, cfg.Mode, r.Accesses, tr.Accesses())
			}
		}
	}
}
