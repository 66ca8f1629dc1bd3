package daemon

import (
	"errors"
	"net/http"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy"
)

// TestClassesDemoteOneWay: think_complete is final for a region and for
// a block: no update gives it another class (none and output_critical
// may be promoted, so leaving think_complete for them was a way back into
// the fast tier). Other class changes are allowed.
func TestClassesDemoteOneWay(t *testing.T) {
	d, _ := fixtureDaemon(t, `
epoch = "10s"
kernel_tiering = "report"
sampler "fault" {}
`)
	wl := startWorkload(t)
	const bs = 64 << 10
	tests := []struct {
		name      string
		from      string         // region class at registration
		complete  []api.Range    // blocks marked think_complete first
		to        string         // the class update
		wantErr   bool           // 400
		wantBlock map[int]string // block classes afterwards
	}{
		{"region think_complete to output_critical", "think_complete", nil, "output_critical", true,
			map[int]string{0: "think_complete", 3: "think_complete"}},
		{"region think_complete to none", "think_complete", nil, "none", true,
			map[int]string{0: "think_complete"}},
		{"region think_complete to think_active", "think_complete", nil, "think_active", true,
			map[int]string{0: "think_complete"}},
		{"marked block stays think_complete under output_critical", "think_active", []api.Range{{Offset: 0, Length: 2 * bs}},
			"output_critical", false, map[int]string{0: "think_complete", 1: "think_complete", 2: "output_critical"}},
		{"marked block stays think_complete under none", "think_active", []api.Range{{Offset: 0, Length: bs}},
			"none", false, map[int]string{0: "think_complete", 1: "none"}},
		{"think_active to think_complete", "think_active", nil, "think_complete", false,
			map[int]string{0: "think_complete", 3: "think_complete"}},
		{"think_active to output_critical", "think_active", nil, "output_critical", false,
			map[int]string{0: "output_critical"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cls, err := policy.ParseClass(tt.from)
			if err != nil {
				t.Fatal(err)
			}
			v, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: 4 * bs, blockSz: bs, class: cls,
				source: "test", priority: policy.PriorityNormal, refcount: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer d.removeRegion(v.ID)
			if tt.complete != nil {
				if _, err := d.updateRegion(v.ID, api.UpdateRequest{ThinkComplete: tt.complete}); err != nil {
					t.Fatal(err)
				}
			}
			_, err = d.updateRegion(v.ID, api.UpdateRequest{Class: &tt.to})
			var re *reqError
			if gotErr := errors.As(err, &re) && re.code == http.StatusBadRequest; gotErr != tt.wantErr {
				t.Errorf("update to %s: %v, want a 400: %v", tt.to, err, tt.wantErr)
			}
			checkBlockClasses(t, d, v.ID, tt.wantBlock)
		})
	}
}

// checkBlockClasses checks the class of each block of region id that want
// names.
func checkBlockClasses(t *testing.T, d *Daemon, id uint64, want map[int]string) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.regions[id]
	for i, w := range want {
		if got := r.metaOf(i).Class.String(); got != w {
			t.Errorf("block %d is %s, want %s", i, got, w)
		}
	}
}
