package systemd

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDebLintian runs lintian on the package: no errors, no warnings, no
// info tags (pedantic ones included), and every override documented.
func TestDebLintian(t *testing.T) {
	need(t, "lintian", "lintian")
	deb := buildDeb(t)
	out, err := exec.Command("lintian", "--fail-on", "error,warning", "--info", "--pedantic", deb).CombinedOutput()
	var tags []string
	for _, line := range strings.Split(string(out), "\n") {
		if regexp.MustCompile(`^[EWIPX]: `).MatchString(line) {
			tags = append(tags, line)
		}
	}
	if err != nil || len(tags) > 0 {
		t.Errorf("lintian %s: %v\n%s", deb, err, strings.Join(tags, "\n"))
	}
	if t.Failed() {
		t.Logf("full output:\n%s", out)
	}
}

// TestLintianOverridesDocumented requires a comment above every override.
func TestLintianOverridesDocumented(t *testing.T) {
	f, err := os.Open("debian/lintian-overrides")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	commented, n := false, 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "#"):
			commented = true
		case line == "":
			commented = false
		default:
			n++
			if !commented {
				t.Errorf("override %q has no comment saying why", line)
			}
			if !strings.HasPrefix(line, "kvtier: ") {
				t.Errorf("override %q is not for package kvtier", line)
			}
		}
	}
	if n == 0 {
		t.Error("no overrides read")
	}
}

// TestDebVersion checks the versions mkdeb.sh derives from git describe
// and that they sort like the commits they come from.
func TestDebVersion(t *testing.T) {
	need(t, "dpkg", "dpkg")
	version := func(describe, epoch string) string {
		t.Helper()
		cmd := exec.Command("bash", "mkdeb.sh", "--version", describe)
		cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+epoch)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mkdeb.sh --version %s: %v", describe, err)
		}
		return strings.TrimSpace(string(out))
	}
	tests := []struct{ describe, epoch, want string }{
		{"v1.2.3", "0", "1.2.3"},
		{"v1.2.3-4-gabcdef", "0", "1.2.3+4+gabcdef"},
		{"v1.2.3-4-gabcdef-dirty", "0", "1.2.3+4+gabcdef+dirty"},
		{"abcdef1", "1767225600", "0.0~git20260101000000.abcdef1"},
		{"abcdef1-dirty", "1767225600", "0.0~git20260101000000.abcdef1+dirty"},
	}
	for _, tt := range tests {
		if got := version(tt.describe, tt.epoch); got != tt.want {
			t.Errorf("%s at %s: %s, want %s", tt.describe, tt.epoch, got, tt.want)
		}
	}
	// Each version sorts before the next: snapshots by time (whatever
	// their hashes), then releases and the commits after them.
	order := []string{
		version("fffffff", "1767225600"), version("0000000", "1767225601"), version("aaaaaaa", "1798761600"),
		"0.1", version("v1.2.3", "0"), version("v1.2.3-4-gzzz", "0"), version("v1.2.3-10-gaaa", "0"), "1.2.4",
	}
	for i := 1; i < len(order); i++ {
		if err := exec.Command("dpkg", "--compare-versions", order[i-1], "lt", order[i]).Run(); err != nil {
			t.Errorf("%s does not sort before %s", order[i-1], order[i])
		}
	}
}

// TestMaintainerScripts runs the maintainer scripts with deb-systemd-invoke,
// deb-systemd-helper and systemctl replaced by stubs that log their
// arguments, and a temporary directory standing in for /run/systemd/system:
// an upgrade keeps the service running in prerm and try-restarts it in
// postinst; only remove and deconfigure stop it; a first install neither
// enables nor starts it.
func TestMaintainerScripts(t *testing.T) {
	tests := []struct {
		script string
		args   []string
		want   []string // the stubs' calls, in order
	}{
		{"prerm", []string{"upgrade", "1.2.4"}, nil},
		{"prerm", []string{"remove"}, []string{"deb-systemd-invoke stop kvtier.service"}},
		{"prerm", []string{"deconfigure", "in-favour", "other", "1"}, []string{"deb-systemd-invoke stop kvtier.service"}},
		{"postinst", []string{"configure", ""}, []string{
			"deb-systemd-helper debian-installed kvtier.service", "deb-systemd-helper update-state kvtier.service",
			"systemctl --system daemon-reload"}},
		{"postinst", []string{"configure", "1.2.3"}, []string{
			"deb-systemd-helper debian-installed kvtier.service", "deb-systemd-helper unmask kvtier.service",
			"deb-systemd-helper --quiet was-enabled kvtier.service", "deb-systemd-helper enable kvtier.service",
			"deb-systemd-helper update-state kvtier.service",
			"systemctl --system daemon-reload", "deb-systemd-invoke try-restart kvtier.service"}},
		{"postrm", []string{"remove"}, []string{"systemctl --system daemon-reload"}},
		{"postrm", []string{"purge"}, []string{"deb-systemd-helper purge kvtier.service"}},
		{"postrm", []string{"upgrade", "1.2.4"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.script+"_"+tt.args[0], func(t *testing.T) {
			got := runMaintainerScript(t, tt.script, tt.args, len(tt.args) > 1 && tt.args[1] != "")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("%s %v called\n  %s\nwant\n  %s", tt.script, tt.args,
					strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// runMaintainerScript runs systemd/debian/SCRIPT with stubs on PATH and
// returns their calls. installed says whether deb-systemd-helper knows the
// unit from an earlier version (debian-installed, was-enabled succeed).
func runMaintainerScript(t *testing.T, script string, args []string, installed bool) []string {
	t.Helper()
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run-systemd-system")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{runDir, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "calls")
	status := "1"
	if installed {
		status = "0"
	}
	stub := "#!/bin/sh\necho \"$(basename \"$0\") $*\" >>" + log + "\n" +
		"case \"$1 $2\" in debian-installed*|\"--quiet was-enabled\") exit " + status + ";; esac\nexit 0\n"
	for _, name := range []string{"deb-systemd-invoke", "deb-systemd-helper", "systemctl"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(filepath.Join("debian", script))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.ReplaceAll(string(src), "/run/systemd/system", runDir)
	// Purge's own clean-up must not touch the host.
	body = strings.NewReplacer("rm -rf /var/lib/kvtier", "true", "rmdir --ignore-fail-on-non-empty /etc/kvtier", "true").Replace(body)
	path := filepath.Join(dir, script)
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", append([]string{path}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin", "DPKG_ROOT=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, out)
	}
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
