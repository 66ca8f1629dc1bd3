package daemon

import (
	"fmt"
	"net"
	"os"
)

// metricsExposureWarning returns a warning when metrics.listen (addr) is
// meant for other hosts while the daemon runs as a systemd service
// (underSystemd): the shipped kvtier.service has IPAddressDeny=any and
// allows localhost only, so scrapes from elsewhere are dropped unless a
// drop-in allows their network. The daemon cannot read its unit's IP
// filter (querying cgroup BPF programs needs CAP_NET_ADMIN), so the
// warning says what to check. Empty when addr is loopback or not set.
func metricsExposureWarning(addr string, underSystemd bool) string {
	if addr == "" || !underSystemd {
		return ""
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "localhost" {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("metrics.listen %s is not a loopback address, but kvtier.service denies IP traffic except to "+
		"localhost (IPAddressDeny=any): other hosts reach the metrics only if a drop-in sets IPAddressAllow for their "+
		"network (see /usr/share/kvtier/metrics-network.conf and README.md)", addr)
}

// underSystemd tells whether systemd started this process as a service
// (it sets INVOCATION_ID for every unit it runs).
func underSystemd() bool { return os.Getenv("INVOCATION_ID") != "" }
