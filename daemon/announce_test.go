package daemon

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/internal/testutil"
)

// TestAnnounceSamplers: the "ready" line names the samplers that opened
// and those that failed, not how many were configured; with none open the
// daemon warns (issue 15: "ready ... samplers=1" with no working sampler).
func TestAnnounceSamplers(t *testing.T) {
	failed := errors.New("permission denied")
	for _, tc := range []struct {
		name     string
		samplers []*samplerState
		want     []string
		not      []string
	}{
		{"one open", []*samplerState{{name: "damon", auto: true, s: stubSampler{}}},
			[]string{"ready: socket=", "samplers=damon"}, []string{"samplers_failed", "no sampler is open"}},
		{"one of two", []*samplerState{{name: "fault", s: stubSampler{}}, {name: "perf", err: failed}},
			[]string{"samplers=fault samplers_failed=perf"}, []string{"no sampler is open"}},
		{"none open", []*samplerState{{name: "bogus", err: failed}, {name: autoNone, auto: true, err: failed}},
			[]string{`samplers=none samplers_failed="bogus,auto"`, "[WARN]  kvtier: no sampler is open: block heat comes from API hints only",
				`failed="bogus,auto"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &testutil.SyncBuffer{}
			d := &Daemon{cfg: &Config{}, api: &apiServer{}, slowNode: 1, moving: true, samplers: tc.samplers,
				log: hclog.New(&hclog.LoggerOptions{Name: "kvtier", Output: logs, Level: hclog.Info})}
			d.announce()
			got := logs.String()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("log lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("log has %q:\n%s", w, got)
				}
			}
		})
	}
}
