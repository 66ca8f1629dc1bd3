// Package systemd holds what installing kvtier needs besides the binary:
// the systemd unit (kvtier.service), the default config (kvtier.hcl), the
// Debian packaging script (mkdeb.sh) and a Grafana dashboard over the
// daemon's metrics (grafana/kvtier.json).
//
// The package has no Go code of its own; its tests check those files: the
// unit with systemd-analyze and under the capability set it grants, the
// default config against a daemon on this host, the dashboard against the
// metrics the daemon exports, and the package with dpkg.
package systemd
