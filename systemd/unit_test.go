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
		t.Error("no WatchdogSec: the daemon pings the watchdog while its epoch loop is alive")
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

// TestDropIns verifies the shipped drop-ins with systemd-analyze verify
// and checks what each must set: kernel-tunables.conf lets the DAMON
// sampler and kernel_tiering = "disable" write their kernel files,
// metrics-network.conf allows a scrape network.
func TestDropIns(t *testing.T) {
	sa := need(t, "systemd-analyze", "systemd")
	bin := kvtierBinary(t)
	for _, tc := range []struct {
		file  string
		lines []string
	}{
		{"kernel-tunables.conf", []string{"ReadWritePaths=-/sys/kernel/mm/damon/admin",
			"ReadWritePaths=-/proc/sys/kernel/numa_balancing", "ReadWritePaths=-/sys/kernel/mm/numa/demotion_enabled"}},
		{"metrics-network.conf", []string{"[Service]", "IPAddressAllow=192.0.2.0/24"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := unitFor(t, bin)
			dir := path + ".d"
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, tc.file), src, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(sa, "verify", path).CombinedOutput()
			if err != nil || len(strings.TrimSpace(string(out))) != 0 {
				t.Errorf("systemd-analyze verify with the drop-in: %v\n%s", err, out)
			}
			for _, l := range tc.lines {
				if !strings.Contains(string(src), "\n"+l+"\n") {
					t.Errorf("drop-in lacks the line %q", l)
				}
			}
		})
	}
}

// unitBytes parses a systemd or GOMEMLIMIT size: a number with an optional
// K, M or G (systemd, base 1024) or KiB, MiB or GiB (Go) suffix.
func unitBytes(t *testing.T, v string) uint64 {
	t.Helper()
	num := strings.TrimRight(v, "KMGiB")
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		t.Fatalf("size %q: %v", v, err)
	}
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "KiB": 10, "MiB": 20, "GiB": 30}
	s, ok := shift[v[len(num):]]
	if !ok {
		t.Fatalf("size %q: unknown suffix", v)
	}
	return n << s
}

// TestUnitResourceBounds checks that the unit bounds memory and CPU and
// that the bounds nest: the Go GC's soft limit below MemoryHigh (where the
// kernel starts throttling), MemoryHigh below MemoryMax (the OOM kill).
func TestUnitResourceBounds(t *testing.T) {
	u := parseUnit(t, "kvtier.service")
	var gomem string
	for _, e := range u.words("Service", "Environment") {
		if v, ok := strings.CutPrefix(e, "GOMEMLIMIT="); ok {
			gomem = v
		}
	}
	for _, k := range []string{"MemoryHigh", "MemoryMax", "CPUWeight", "CPUQuota"} {
		if u.last("Service", k) == "" {
			t.Fatalf("[Service] sets no %s", k)
		}
	}
	if gomem == "" {
		t.Fatal("no Environment=GOMEMLIMIT=...")
	}
	limit, high, hard := unitBytes(t, gomem), unitBytes(t, u.last("Service", "MemoryHigh")), unitBytes(t, u.last("Service", "MemoryMax"))
	if !(limit < high && high < hard) {
		t.Errorf("want GOMEMLIMIT %d < MemoryHigh %d < MemoryMax %d", limit, high, hard)
	}
	if w, err := strconv.Atoi(u.last("Service", "CPUWeight")); err != nil || w >= 100 {
		t.Errorf("CPUWeight %q: want below the default 100, so the engine wins under contention", u.last("Service", "CPUWeight"))
	}
}
