package sim

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
)

// mooncakeHead prepares the first n records of the embedded Mooncake trace.
func mooncakeHead(t testing.TB, n int, opt trace.MooncakeOptions) *Trace {
	t.Helper()
	open := MooncakeSample(opt)
	tr, err := Prepare("mooncake_head", func() (trace.Reader, error) {
		r, err := open()
		return &limited{r: r, n: n}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestReplayKeptAndReread checks that a trace kept in memory and one
// re-read from its source (too many distinct metadata values to keep)
// give the same results in every mode.
func TestReplayKeptAndReread(t *testing.T) {
	// Tiering replays without frees: policy/plan's Planner can still
	// plan a move of a block untracked since the last epoch.
	free, noFree := trace.MooncakeOptions{FreeDecode: true}, trace.MooncakeOptions{}
	kept, keptNF := mooncakeHead(t, 8000, free), mooncakeHead(t, 8000, noFree)
	old := metaLimit
	metaLimit = 100
	reread, rereadNF := mooncakeHead(t, 8000, free), mooncakeHead(t, 8000, noFree)
	metaLimit = old
	if !kept.kept() || reread.kept() {
		t.Fatalf("kept %v, re-read %v: want true, false", kept.kept(), reread.kept())
	}
	h, err := NewHierarchy("cxl", "constrained")
	if err != nil {
		t.Fatal(err)
	}
	h.Tiers[0].Capacity = 300 * 512 * trace.KVBytesLlama2_70B
	for _, cfg := range []Config{
		{Policy: "lru", Mode: ModeBlocks, CapacityBlocks: 300},
		{Policy: "belady", Mode: ModeBlocks, CapacityBlocks: 300},
		{Policy: "windowed_recency", Hierarchy: h, Prefetch: 2},
		{Policy: "arc", Hierarchy: h, Mode: ModeTiering, SampleRate: 0.5, Epoch: 64, Seed: 3},
	} {
		k, r := kept, reread
		if cfg.Mode == ModeTiering {
			k, r = keptNF, rereadNF
		}
		a, err := Run(cfg, k)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(cfg, r)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s %s: kept and re-read traces differ:\n%+v\n%+v", cfg.Policy, cfg.Mode, a, b)
		}
	}
}

// TestRunAllocsPerRecord checks that a replay allocates per run, not per
// record: twice the records cost no more allocations.
func TestRunAllocsPerRecord(t *testing.T) {
	opt := trace.MooncakeOptions{FreeDecode: true}
	short, long := mooncakeHead(t, 20000, opt), mooncakeHead(t, 40000, opt)
	for _, p := range []string{"lru"} {
		cfg := Config{Policy: p, Mode: ModeBlocks, CapacityBlocks: 500}
		allocs := func(tr *Trace) float64 {
			return testing.AllocsPerRun(3, func() {
				if _, err := Run(cfg, tr); err != nil {
					t.Fatal(err)
				}
			})
		}
		if a, b := allocs(short), allocs(long); b > a+8 {
			t.Errorf("%s: %v allocations for %d records, %v for %d", p, a, short.Records(), b, long.Records())
		}
	}
}

// TestMaxBlockBytes: the largest accessed block, a record without a size
// counting as DefaultBlockBytes; frees and updates do not count.
func TestMaxBlockBytes(t *testing.T) {
	tests := []struct {
		name  string
		jsonl string
		want  int64
	}{
		{"empty", "", 0},
		{"no size", `{"op":"access","time":1,"block":1}` + "\n", DefaultBlockBytes},
		{"largest", `{"op":"access","time":1,"block":1,"size":4096}
{"op":"access","time":2,"block":2,"size":2097152}
{"op":"access","time":3,"block":3,"size":65536}
{"op":"free","time":4,"block":4,"size":8388608}
`, 2 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Prepare(tt.name, func() (trace.Reader, error) {
				return trace.NewJSONL(strings.NewReader(tt.jsonl), tt.name), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.MaxBlockBytes(); got != tt.want {
				t.Errorf("MaxBlockBytes() = %d, want %d", got, tt.want)
			}
		})
	}
}
