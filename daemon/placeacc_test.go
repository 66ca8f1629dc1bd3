package daemon

import (
	"testing"

	"github.com/kvtier/kvtier/numa"
)

// TestPlaceAcc: page statuses gather into block placements by the class
// of each page's node (node 0 fast, node 1 slow on the fixture; a node
// the topology does not know counts fast), pages not present count in
// neither tier, and the class of the node marked last is not carried to
// a page on another node.
func TestPlaceAcc(t *testing.T) {
	d, _ := fixtureDaemon(t, feedbackConfig)
	const absent = numa.PageStatus(-2) // -ENOENT
	tests := []struct {
		name  string
		pages [][]numa.PageStatus // statuses of each block's pages
		want  []blockPlace
	}{
		{"one node", [][]numa.PageStatus{{0, 0}, {0}}, []blockPlace{{fast: true}, {fast: true}}},
		{"slow", [][]numa.PageStatus{{1, 1}, {1}}, []blockPlace{{slow: true}, {slow: true}}},
		{"split", [][]numa.PageStatus{{0, 1}, {1, 0}}, []blockPlace{{fast: true, slow: true}, {fast: true, slow: true}}},
		{"alternating blocks", [][]numa.PageStatus{{1}, {0}, {1}, {0}},
			[]blockPlace{{slow: true}, {fast: true}, {slow: true}, {fast: true}}},
		{"absent", [][]numa.PageStatus{{absent, absent}, {absent, 1}}, []blockPlace{{}, {slow: true}}},
		{"unknown node", [][]numa.PageStatus{{1}, {7}, {1}}, []blockPlace{{slow: true}, {fast: true}, {slow: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newPlaceAcc(d.topo, len(tt.pages))
			for b, sts := range tt.pages {
				for _, st := range sts {
					acc.mark(b, st)
				}
			}
			for b, want := range tt.want {
				if acc.pl[b] != want {
					t.Errorf("block %d: %+v, want %+v", b, acc.pl[b], want)
				}
			}
		})
	}
}
