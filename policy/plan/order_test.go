package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestOrder: promotions follow the demotions that free their room, the
// ones that fit free room first, extra demotions last.
func TestOrder(t *testing.T) {
	mv := func(promote bool, id policy.BlockID, size int64) Move {
		return Move{Block: &policy.Block{ID: id, Meta: policy.Meta{Size: size}}, Promote: promote}
	}
	d := func(id policy.BlockID, size int64) Move { return mv(false, id, size) }
	p := func(id policy.BlockID, size int64) Move { return mv(true, id, size) }
	for _, tc := range []struct {
		name    string
		demote  []Move
		promote []Move
		want    string
	}{
		{"pairs", []Move{d(1, 2), d(2, 2), d(3, 2)}, []Move{p(4, 2), p(5, 2), p(6, 2)}, "-1 +4 -2 +5 -3 +6"},
		{"room for one", []Move{d(1, 2)}, []Move{p(4, 2), p(5, 2)}, "+4 -1 +5"},
		{"no victims", nil, []Move{p(4, 2), p(5, 2)}, "+4 +5"},
		{"shed beyond", []Move{d(1, 2), d(2, 2), d(3, 2)}, []Move{p(4, 2)}, "-1 +4 -2 -3"},
		{"only demotions", []Move{d(1, 2), d(2, 2)}, nil, "-1 -2"},
		{"small victims for a large block", []Move{d(1, 1), d(2, 1), d(3, 2)}, []Move{p(4, 2), p(5, 2)},
			"-1 -2 +4 -3 +5"},
		{"empty", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &Plan{Demote: tc.demote, Promote: tc.promote}
			var got []string
			for _, m := range pl.Order() {
				sign := "-"
				if m.Promote {
					sign = "+"
				}
				got = append(got, fmt.Sprintf("%s%d", sign, m.Block.ID))
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("Order() = %q, want %q", s, tc.want)
			}
		})
	}
}
