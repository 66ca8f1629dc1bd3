package sim

import (
	"reflect"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
)

func TestNeedsNext(t *testing.T) {
	tests := []struct {
		spec string
		want bool
	}{
		{"belady", true},
		{"lru", false},
		{"arc", false},
		{"s3fifo", false},
		{"streaming", false},
		{"streaming:inner=belady", true},
		{"streaming:inner=arc", false},
		{"nosuch", false},
		{":", false},
	}
	for _, tt := range tests {
		if got := NeedsNext(tt.spec); got != tt.want {
			t.Errorf("NeedsNext(%q) = %v, want %v", tt.spec, got, tt.want)
		}
	}
}

func TestParseReferences(t *testing.T) {
	tests := []struct {
		in      string
		want    References
		wantErr bool
	}{
		{"lru,belady", References{LRU: true, Belady: true}, false},
		{"belady, lru", References{LRU: true, Belady: true}, false},
		{"lru", References{LRU: true}, false},
		{"belady", References{Belady: true}, false},
		{"none", References{}, false},
		{"opt", References{}, true},
		{"", References{}, true},
	}
	for _, tt := range tests {
		got, err := ParseReferences(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseReferences(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			continue
		}
		if err == nil && tt.in != "belady, lru" && got.String() != tt.in {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tt.in)
		}
	}
}

// CompareWith adds the references asked for, runs a reference asked as a
// policy once, computes next uses only for Bélády, and gives every row
// the hit ratio Compare gives it.
func TestCompareWith(t *testing.T) {
	spec := "adversarial_burst:seed=7"
	cfg := Config{Mode: ModeBlocks, CapacityBlocks: 16}
	tests := []struct {
		policies []string
		refs     References
		want     []string
		next     bool // next uses computed
		headroom bool
	}{
		{[]string{"fifo"}, AllReferences, []string{"fifo", RefLRU, RefBelady}, true, true},
		{[]string{"lru"}, AllReferences, []string{"lru", RefBelady}, true, true},
		{[]string{"lru", "arc"}, References{}, []string{"lru", "arc"}, false, false},
		{[]string{"arc"}, References{LRU: true}, []string{"arc", RefLRU}, false, false},
		{[]string{"belady", "lru"}, References{}, []string{"belady", "lru"}, true, true},
		{nil, References{Belady: true}, []string{RefBelady}, true, false},
	}
	all := map[string]float64{}
	for _, tt := range tests {
		tr, err := Prepare(spec, func() (trace.Reader, error) { return trace.NewWorkloadSpec(spec) })
		if err != nil {
			t.Fatal(err)
		}
		rs, err := CompareWith(cfg, tt.policies, tt.refs, tr)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range rs {
			names = append(names, r.Policy)
			if h, ok := all[r.Policy]; ok && h != r.FastHitRatio {
				t.Errorf("%v %v: %s hit ratio %g, elsewhere %g", tt.policies, tt.refs, r.Policy, r.FastHitRatio, h)
			}
			all[r.Policy] = r.FastHitRatio
			if (r.Headroom != nil) != tt.headroom || (r.BeladyHitRatio != 0) != tt.headroom {
				t.Errorf("%v %v: %s headroom %v belady %g, want headroom %v", tt.policies, tt.refs, r.Policy,
					r.Headroom, r.BeladyHitRatio, tt.headroom)
			}
		}
		if !reflect.DeepEqual(names, tt.want) {
			t.Errorf("%v %v: rows %v, want %v", tt.policies, tt.refs, names, tt.want)
		}
		if (tr.next != nil) != tt.next {
			t.Errorf("%v %v: next uses computed %v, want %v", tt.policies, tt.refs, tr.next != nil, tt.next)
		}
	}
}
