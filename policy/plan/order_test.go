package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestOrder: demotions that restore a budget first, then promotions that
// fit free room, then each victim followed by the promotion it made room
// for, then the headroom's refills.
func TestOrder(t *testing.T) {
	mv := func(promote bool, id policy.BlockID, size int64) Move {
		return Move{Block: &policy.Block{ID: id, Meta: policy.Meta{Size: size}}, Promote: promote}
	}
	d := func(id policy.BlockID, size int64) Move { return mv(false, id, size) }
	p := func(id policy.BlockID, size int64) Move { return mv(true, id, size) }
	head := func(id policy.BlockID, size int64) Move {
		m := d(id, size)
		m.Reason = ReasonHeadroom
		return m
	}
	for _, tc := range []struct {
		name    string
		demote  []Move
		promote []Move
		shed    int
		want    string
	}{
		{"pairs", []Move{d(1, 2), d(2, 2), d(3, 2)}, []Move{p(4, 2), p(5, 2), p(6, 2)}, 0, "-1 +4 -2 +5 -3 +6"},
		{"room for one", []Move{d(1, 2)}, []Move{p(4, 2), p(5, 2)}, 0, "+4 -1 +5"},
		{"no victims", nil, []Move{p(4, 2), p(5, 2)}, 0, "+4 +5"},
		{"more victims than promotions", []Move{d(1, 2), d(2, 2), d(3, 2)}, []Move{p(4, 2)}, 0, "-1 +4 -2 -3"},
		{"only demotions", []Move{d(1, 2), d(2, 2)}, nil, 0, "-1 -2"},
		{"small victims for a large block", []Move{d(1, 1), d(2, 1), d(3, 2)}, []Move{p(4, 2), p(5, 2)}, 0,
			"-1 -2 +4 -3 +5"},
		{"empty", nil, nil, 0, ""},
		{"shed first", []Move{d(1, 2), d(2, 2), d(3, 2)}, []Move{p(4, 2)}, 2, "-1 -2 -3 +4"},
		{"headroom last", []Move{d(1, 2), head(2, 2), head(3, 2)}, []Move{p(4, 2), p(5, 2)}, 0, "+4 -1 +5 -2 -3"},
		{"shed, pairs, headroom", []Move{d(1, 2), d(2, 2), head(3, 2)}, []Move{p(4, 2)}, 1, "-1 -2 +4 -3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &Plan{Demote: tc.demote, Promote: tc.promote, shed: tc.shed}
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
