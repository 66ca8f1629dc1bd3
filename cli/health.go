package cli

import (
	"fmt"
	"strings"

	"github.com/kvtier/kvtier/daemon/api"
)

// healthRule is the rule `kvtier status` applies, for its help text.
const healthRule = "It exits 1 when the daemon is unhealthy: a sampler failed (every sampler\n" +
	"failing is one more problem), a sampler drops events, the last epoch failed or\n" +
	"overran. Warnings are listed but exit 0: what the host cannot fix, such as no\n" +
	"sampler seeing steady-state accesses (no DAMON, no memory-sampling PMU: `auto`\n" +
	"found none, or only page-fault samplers run)."

// autoNone is the sampler name the daemon reports when sampler "auto"
// found no candidate on this host.
const autoNone = "auto: none"

// addSamplerError lists a sampler's error: a problem, except when "auto"
// found nothing to open, which the host cannot fix (a warning).
func (rep *statusReport) addSamplerError(s api.SamplerStatus) {
	msg := fmt.Sprintf("sampler %s: %s", s.Name, s.Error)
	if s.Name == autoNone {
		rep.Warnings = append(rep.Warnings, msg)
		return
	}
	rep.Problems = append(rep.Problems, msg)
}

// checkSamplersFailed adds a problem when samplers were configured and
// every one failed: the daemon then runs on API hints alone.
func (rep *statusReport) checkSamplersFailed(ss []api.SamplerStatus) {
	var failed []string
	for _, s := range ss {
		if s.Error == "" || s.Name == autoNone {
			return
		}
		failed = append(failed, s.Name)
	}
	if len(failed) > 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("every sampler failed (%s): block heat comes from API hints only",
			strings.Join(failed, ", ")))
	}
}

// healthString is the status line's verdict: "healthy", "healthy, 1
// warning", "2 problems, 1 warning".
func healthString(rep statusReport) string {
	out := "healthy"
	if len(rep.Problems) > 0 {
		out = plural(len(rep.Problems), "problem", "problems")
	}
	if len(rep.Warnings) > 0 {
		out += ", " + plural(len(rep.Warnings), "warning", "warnings")
	}
	return out
}

// unhealthy is the error (exit 1) status returns after printing the report
// of an unhealthy daemon.
func unhealthy(rep statusReport) error {
	if rep.Healthy {
		return nil
	}
	return withCode(ExitError, fmt.Errorf("the daemon is unhealthy: %s (listed above)",
		plural(len(rep.Problems), "problem", "problems")))
}
