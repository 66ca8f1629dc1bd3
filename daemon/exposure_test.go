package daemon

import (
	"strings"
	"testing"
)

func TestMetricsExposureWarning(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		systemd bool
		warn    bool
	}{
		{"127.0.0.1:9477", true, false},
		{"[::1]:9477", true, false},
		{"localhost:9477", true, false},
		{"127.0.0.2:9477", true, false},
		{"", true, false},
		{"0.0.0.0:9477", true, true},
		{":9477", true, true},
		{"[::]:9477", true, true},
		{"10.1.2.3:9477", true, true},
		{"node7.example:9477", true, true},
		{"0.0.0.0:9477", false, false},
	} {
		got := metricsExposureWarning(tc.addr, tc.systemd)
		if (got != "") != tc.warn {
			t.Errorf("metricsExposureWarning(%q, systemd=%v) = %q, want a warning: %v", tc.addr, tc.systemd, got, tc.warn)
		}
		if got != "" && (!strings.Contains(got, tc.addr) || !strings.Contains(got, "IPAddressAllow")) {
			t.Errorf("warning for %q does not name the address and IPAddressAllow: %q", tc.addr, got)
		}
	}
}
