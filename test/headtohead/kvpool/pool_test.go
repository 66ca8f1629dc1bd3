package kvpool

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
)

func TestPool(t *testing.T) {
	type step struct {
		id   uint64
		slot int
		hit  bool
	}
	for _, tc := range []struct {
		name  string
		slots int
		steps []step
	}{
		{"free slots first", 3, []step{{10, 0, false}, {11, 1, false}, {10, 0, true}, {12, 2, false}}},
		{"lru victim", 2, []step{{1, 0, false}, {2, 1, false}, {1, 0, true}, {3, 1, false}, {2, 0, false}, {3, 1, true}}},
		{"evicted id misses again", 1, []step{{5, 0, false}, {6, 0, false}, {5, 0, false}, {5, 0, true}}},
	} {
		p := New(tc.slots)
		for i, s := range tc.steps {
			slot, hit := p.Get(s.id)
			if slot != s.slot || hit != s.hit {
				t.Errorf("%s: step %d get(%d) = %d, %v; want %d, %v", tc.name, i, s.id, slot, hit, s.slot, s.hit)
			}
		}
	}
}

func TestReplay(t *testing.T) {
	tr := `{"timestamp": 0, "input_length": 1024, "output_length": 1, "hash_ids": [0, 1]}
{"timestamp": 1, "input_length": 1536, "output_length": 1, "hash_ids": [0, 2, 3]}
{"timestamp": 2, "input_length": 512, "output_length": 1, "hash_ids": [1]}
`
	for _, tc := range []struct {
		name  string
		slots int
		limit int
		want  []Access
	}{
		{"all", 3, 0, []Access{{0, 0, false}, {1, 1, false}, {0, 0, true}, {2, 2, false}, {3, 1, false}, {1, 0, false}}},
		{"limit", 3, 2, []Access{{0, 0, false}, {1, 1, false}}},
		{"big pool", 8, 0, []Access{{0, 0, false}, {1, 1, false}, {0, 0, true}, {2, 2, false}, {3, 3, false}, {1, 1, true}}},
	} {
		got, err := Replay(trace.NewMooncake(strings.NewReader(tr), "t", trace.MooncakeOptions{NoDecode: true, NoRefCount: true}), tc.slots, tc.limit)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
