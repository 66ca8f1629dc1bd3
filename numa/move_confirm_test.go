package numa

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestConfirmOnTarget: move_pages(2) moves a transparent huge page whole
// when its first base page is named, and may report its other base pages
// EBUSY (their folio was already isolated for the move) although they are
// on the target afterwards; the pages that still failed after the retries
// are queried again and those on the target count as moved. Pages
// elsewhere keep their error (ENOMEM stays ENOMEM, so a full node is still
// seen). The kernel only reports such EBUSY pages on a two-node machine
// (test/, the THP arena); here the statuses are what it reports there, for
// pages of this process's buffer that are on node 0.
func TestConfirmOnTarget(t *testing.T) {
	requireRoot(t)
	topo := hostTopology(t)
	node := memoryNodes(topo)[0]
	b := testBuffer(t, 4)
	pages, err := PagesOf(bufAddr(b), bufAddr(b)+uintptr(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	busy := PageStatus(-int32(unix.EBUSY))
	tests := []struct {
		name   string
		status []PageStatus
		target int
		want   []PageStatus
		calls  int
	}{
		{"all on target: no query", []PageStatus{PageStatus(node), PageStatus(node), PageStatus(node), PageStatus(node)}, node,
			[]PageStatus{PageStatus(node), PageStatus(node), PageStatus(node), PageStatus(node)}, 0},
		{"EBUSY pages of a moved huge page", []PageStatus{PageStatus(node), busy, busy, busy}, node,
			[]PageStatus{PageStatus(node), PageStatus(node), PageStatus(node), PageStatus(node)}, 1},
		{"not on the target: errors kept", []PageStatus{busy, PageStatus(-int32(unix.ENOMEM)), NotAttempted, busy}, node + 1,
			[]PageStatus{busy, PageStatus(-int32(unix.ENOMEM)), NotAttempted, busy}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := append([]PageStatus(nil), tt.status...)
			calls := confirmOnTarget(0, pages, status, tt.target)
			for i := range status {
				if status[i] != tt.want[i] {
					t.Errorf("page %d: %v, want %v", i, status[i], tt.want[i])
				}
			}
			if calls != tt.calls {
				t.Errorf("%d query calls, want %d", calls, tt.calls)
			}
			var st MoveStats
			tally(status, tt.target, &st)
			if want := countTarget(tt.want, tt.target); st.OnTarget != want {
				t.Errorf("tally: %d on target, want %d", st.OnTarget, want)
			}
		})
	}
}

func countTarget(s []PageStatus, node int) int {
	n := 0
	for _, x := range s {
		if int(x) == node {
			n++
		}
	}
	return n
}
