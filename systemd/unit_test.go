package systemd

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/daemon"
	"github.com/kvtier/kvtier/daemon/api"
)

// unit is a parsed unit file: section -> key -> values in order.
type unit map[string]map[string][]string

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: not a key=value line in a section: %q", path, n, line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	return u
}

// last is the effective value of a single-valued key.
func (u unit) last(section, key string) string {
	vs := u[section][key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// words is the union of the words of every assignment of key.
func (u unit) words(section, key string) []string {
	var out []string
	for _, v := range u[section][key] {
		out = append(out, strings.Fields(v)...)
	}
	return out
}

func TestUnitDirectives(t *testing.T) {
	u := parseUnit(t, "kvtier.service")
	want := map[string]string{
		"Type": "notify", "NotifyAccess": "main", "RuntimeDirectory": "kvtier", "ProtectSystem": "strict",
		"ProtectHome": "yes", "PrivateTmp": "yes", "NoNewPrivileges": "yes", "SystemCallArchitectures": "native",
		"ExecStart": "/usr/bin/kvtier daemon --config " + daemon.DefaultConfigPath, "Restart": "on-failure",
	}
	for k, v := range want {
		if got := u.last("Service", k); got != v {
			t.Errorf("[Service] %s = %q, want %q", k, got, v)
		}
	}
	if u.last("Service", "WatchdogSec") == "" {
		t.Error("no WatchdogSec: the daemon pings the watchdog from its epoch loop")
	}
	if got := strings.Join(u.words("Service", "RestrictAddressFamilies"), " "); got != "AF_UNIX AF_INET AF_INET6" {
		t.Errorf("RestrictAddressFamilies = %q", got)
	}
	// The socket lives in the RuntimeDirectory.
	if !strings.HasPrefix(api.DefaultSocket, "/run/"+u.last("Service", "RuntimeDirectory")+"/") {
		t.Errorf("default socket %s is not in RuntimeDirectory %s", api.DefaultSocket, u.last("Service", "RuntimeDirectory"))
	}
	bounding, ambient := u.words("Service", "CapabilityBoundingSet"), u.words("Service", "AmbientCapabilities")
	if strings.Join(bounding, " ") != strings.Join(ambient, " ") {
		t.Errorf("AmbientCapabilities %v differ from CapabilityBoundingSet %v: with SecureBits=noroot the "+
			"daemon gets only its ambient set", ambient, bounding)
	}
	if u.last("Install", "WantedBy") != "multi-user.target" {
		t.Errorf("WantedBy = %q", u.last("Install", "WantedBy"))
	}
}

// TestUnitVerify runs systemd-analyze verify with ExecStart pointing at a
// freshly built binary; any warning fails.
func TestUnitVerify(t *testing.T) {
	sa := need(t, "systemd-analyze", "systemd")
	path := unitFor(t, kvtierBinary(t))
	out, err := exec.Command(sa, "verify", path).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) != 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// maxExposure is the worst `systemd-analyze security` exposure accepted.
const maxExposure = 3.0

var exposureRE = regexp.MustCompile(`Overall exposure level for kvtier\.service: ([0-9.]+)`)

func TestUnitSecurity(t *testing.T) {
	sa := need(t, "systemd-analyze", "systemd")
	path := unitFor(t, kvtierBinary(t))
	out, err := exec.Command(sa, "security", "--offline=true", "--no-pager", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := exposureRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	level, _ := strconv.ParseFloat(string(m[1]), 64)
	t.Logf("systemd-analyze security --offline=true: exposure %.1f", level)
	if level > maxExposure {
		t.Errorf("exposure %.1f is above %.1f:\n%s", level, maxExposure, out)
	}
}

// TestKernelTunablesDropIn verifies the drop-in that lets the DAMON
// sampler and kernel_tiering = "disable" write their kernel files.
func TestKernelTunablesDropIn(t *testing.T) {
	sa := need(t, "systemd-analyze", "systemd")
	path := unitFor(t, kvtierBinary(t))
	dir := path + ".d"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("kernel-tunables.conf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel-tunables.conf"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", path).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) != 0 {
		t.Errorf("systemd-analyze verify with the drop-in: %v\n%s", err, out)
	}
	for _, p := range []string{"/sys/kernel/mm/damon/admin", "/proc/sys/kernel/numa_balancing",
		"/sys/kernel/mm/numa/demotion_enabled"} {
		if !strings.Contains(string(src), "ReadWritePaths=-"+p+"\n") {
			t.Errorf("drop-in does not make %s writable", p)
		}
	}
}
