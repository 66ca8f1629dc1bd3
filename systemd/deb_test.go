package systemd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// debEntry is one line of `dpkg-deb -c`.
type debEntry struct {
	mode, owner, path string
}

// wantDebFiles are the files of the package and their modes.
var wantDebFiles = map[string]string{
	"./usr/bin/kvtier":                                     "-rwxr-xr-x",
	"./lib/systemd/system/kvtier.service":                  "-rw-r--r--",
	"./etc/kvtier/kvtier.hcl":                              "-rw-r--r--",
	"./usr/share/bash-completion/completions/kvtier":       "-rw-r--r--",
	"./usr/share/zsh/vendor-completions/_kvtier":           "-rw-r--r--",
	"./usr/share/fish/vendor_completions.d/kvtier.fish":    "-rw-r--r--",
	"./usr/share/doc/kvtier/README.md.gz":                  "-rw-r--r--",
	"./usr/share/kvtier/grafana/kvtier.json":               "-rw-r--r--",
	"./usr/share/kvtier/kernel-tunables.conf":              "-rw-r--r--",
	"./usr/share/kvtier/metrics-network.conf":              "-rw-r--r--",
	"./usr/share/doc/kvtier/examples/kvtier-reference.hcl": "-rw-r--r--",
	"./usr/share/doc/kvtier/copyright":                     "-rw-r--r--",
	"./usr/share/doc/kvtier/changelog.gz":                  "-rw-r--r--",
	"./usr/share/lintian/overrides/kvtier":                 "-rw-r--r--",
	"./usr/share/man/man1/kvtier.1.gz":                     "-rw-r--r--",
	"./usr/share/man/man1/kvtier-daemon.1.gz":              "-rw-r--r--",
	"./usr/share/man/man1/kvtier-trace-gen.1.gz":           "-rw-r--r--",
}

// manPage matches the other commands' man pages, which the package has
// one of per command.
var manPage = regexp.MustCompile(`^\./usr/share/man/man1/kvtier-[a-z-]+\.1\.gz$`)

var (
	debOnce sync.Once
	debPath string
	debErr  error
)

// buildDeb runs `make deb-package` (what `make deb` runs after building)
// with a freshly built binary, once per test run.
func buildDeb(t *testing.T) string {
	t.Helper()
	need(t, "dpkg-deb", "dpkg")
	need(t, "make", "make")
	bin := kvtierBinary(t)
	debOnce.Do(func() { debPath, debErr = makeDeb(bin) })
	if debErr != nil {
		t.Fatal(debErr)
	}
	return debPath
}

func makeDeb(bin string) (string, error) {
	out, err := os.MkdirTemp(filepath.Dir(bin), "deb-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command("make", "-s", "-C", "..", "deb-package", "BIN="+bin, "DISTDIR="+out, "VERSION=v1.2.3-4-gabcdef")
	b, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("make deb-package: %v\n%s", err, b)
	}
	debs, _ := filepath.Glob(filepath.Join(out, "*.deb"))
	if len(debs) != 1 || strings.TrimSpace(string(b)) != debs[0] {
		return "", fmt.Errorf("make deb-package printed %q and made %v", b, debs)
	}
	return debs[0], nil
}

// TestDebContents builds the package with a tagged version and checks its
// name, control data, maintainer scripts, files and modes, and that what it
// installs is the repository's.
func TestDebContents(t *testing.T) {
	deb := buildDeb(t)
	if !strings.HasSuffix(deb, "/kvtier_1.2.3+4+gabcdef_"+debArch(t)+".deb") {
		t.Errorf("package name %s: want the version from the tag", deb)
	}
	checkDebControl(t, deb)
	checkDebEntries(t, deb)
	checkDebPayload(t, deb)
}

// checkDebControl checks the control fields, that the maintainer scripts
// are there, executable and parse, and that only the config is a conffile.
func checkDebControl(t *testing.T, deb string) {
	t.Helper()
	info, err := exec.Command("dpkg-deb", "-I", deb).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-deb -I: %v\n%s", err, info)
	}
	for _, field := range []string{"Package: kvtier", "Version: 1.2.3+4+gabcdef", "Architecture: " + debArch(t),
		"Maintainer: ", "Installed-Size: ", "Section: admin", "Priority: optional", "Description: "} {
		if !strings.Contains(string(info), "\n "+field) {
			t.Errorf("control lacks %q:\n%s", field, info)
		}
	}
	for _, script := range []string{"postinst", "prerm", "postrm"} {
		if !regexp.MustCompile(`\*\s+` + script + `\s+#!/bin/sh`).Match(info) {
			t.Errorf("maintainer script %s missing or not executable:\n%s", script, info)
		}
	}
	conffiles, err := exec.Command("dpkg-deb", "-f", deb, "Package").Output()
	if err != nil || strings.TrimSpace(string(conffiles)) != "kvtier" {
		t.Errorf("dpkg-deb -f: %q %v", conffiles, err)
	}
	ctrl := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-e", deb, ctrl).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -e: %v\n%s", err, out)
	}
	if cf, _ := os.ReadFile(filepath.Join(ctrl, "conffiles")); strings.TrimSpace(string(cf)) != "/etc/kvtier/kvtier.hcl" {
		t.Errorf("conffiles = %q, want the config only", cf)
	}
	for _, s := range []string{"postinst", "prerm", "postrm"} {
		if out, err := exec.Command("sh", "-n", filepath.Join(ctrl, s)).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", s, err, out)
		}
	}
}

// checkDebEntries checks the package's file list: everything owned by
// root, directories 0755, the files of wantDebFiles with their modes, man
// pages 0644, and nothing else.
func checkDebEntries(t *testing.T, deb string) {
	t.Helper()
	entries := debContents(t, deb)
	got := map[string]debEntry{}
	for _, e := range entries {
		if e.owner != "root/root" {
			t.Errorf("%s is owned by %s, want root/root", e.path, e.owner)
		}
		if strings.HasSuffix(e.path, "/") {
			if e.mode != "drwxr-xr-x" {
				t.Errorf("directory %s has mode %s", e.path, e.mode)
			}
			continue
		}
		got[e.path] = e
		if _, ok := wantDebFiles[e.path]; !ok && manPage.MatchString(e.path) {
			if e.mode != "-rw-r--r--" {
				t.Errorf("man page %s has mode %s", e.path, e.mode)
			}
		} else if !ok {
			t.Errorf("unexpected file %s in the package", e.path)
		}
	}
	for path, mode := range wantDebFiles {
		if e, ok := got[path]; !ok {
			t.Errorf("%s missing from the package", path)
		} else if e.mode != mode {
			t.Errorf("%s has mode %s, want %s", path, e.mode, mode)
		}
	}
}

// checkDebPayload unpacks the package and checks that the unit (ExecStart
// /usr/bin), config and dashboard are the repository's, unchanged, and that
// the binary runs.
func checkDebPayload(t *testing.T, deb string) {
	t.Helper()
	x := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", deb, x).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	for _, f := range []string{"lib/systemd/system/kvtier.service", "etc/kvtier/kvtier.hcl", "usr/share/kvtier/grafana/kvtier.json"} {
		packaged, _ := os.ReadFile(filepath.Join(x, f))
		repo, _ := os.ReadFile(filepath.Base(f))
		if f == "usr/share/kvtier/grafana/kvtier.json" {
			repo, _ = os.ReadFile(dashboardPath)
		}
		if len(packaged) == 0 || string(packaged) != string(repo) {
			t.Errorf("packaged %s differs from the repository's", f)
		}
	}
	if out, err := exec.Command(filepath.Join(x, "usr/bin/kvtier"), "version").CombinedOutput(); err != nil {
		t.Errorf("packaged binary: %v\n%s", err, out)
	}
}

func debArch(t *testing.T) string {
	out, err := exec.Command("dpkg", "--print-architecture").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func debContents(t *testing.T, deb string) []debEntry {
	t.Helper()
	out, err := exec.Command("dpkg-deb", "-c", deb).Output()
	if err != nil {
		t.Fatalf("dpkg-deb -c: %v", err)
	}
	var es []debEntry
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("dpkg-deb -c line %q", line)
		}
		es = append(es, debEntry{mode: f[0], owner: f[1], path: f[len(f)-1]})
	}
	return es
}

// TestDebInstallRemove installs the package with dpkg, checks the files,
// then removes and purges it, leaving the system as it was. It refuses to
// touch a system where kvtier is already installed.
func TestDebInstallRemove(t *testing.T) {
	needRoot(t, "dpkg -i installs into /")
	need(t, "dpkg", "dpkg")
	if out, _ := exec.Command("dpkg-query", "-W", "-f=${Status}", "kvtier").Output(); len(out) > 0 &&
		!strings.Contains(string(out), "not-installed") {
		t.Skipf("a kvtier package is already installed here (%s): not touching it", out)
	}
	for _, p := range []string{"/usr/bin/kvtier", "/etc/kvtier", "/lib/systemd/system/kvtier.service"} {
		if _, err := os.Lstat(p); err == nil {
			t.Skipf("%s exists outside dpkg: not touching it", p)
		}
	}
	deb := buildDeb(t)
	dpkg := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("dpkg", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { _, _ = exec.Command("dpkg", "-P", "kvtier").CombinedOutput() })
	dpkg("-i", deb)
	listed := strings.Fields(dpkg("-L", "kvtier"))
	sort.Strings(listed)
	for path := range wantDebFiles {
		p := strings.TrimPrefix(path, ".")
		if i := sort.SearchStrings(listed, p); i == len(listed) || listed[i] != p {
			t.Errorf("dpkg -L lacks %s", p)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("installed file: %v", err)
		}
	}
	if out, err := exec.Command("/usr/bin/kvtier", "daemon", "--check", "--config", "/etc/kvtier/kvtier.hcl").CombinedOutput(); err != nil {
		t.Errorf("installed config does not check: %v\n%s", err, out)
	}
	// An edited conffile survives remove and goes on purge.
	if err := os.WriteFile("/etc/kvtier/kvtier.hcl", []byte("epoch = \"2s\"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	dpkg("-r", "kvtier")
	if _, err := os.Stat("/usr/bin/kvtier"); err == nil {
		t.Error("/usr/bin/kvtier left after dpkg -r")
	}
	if b, err := os.ReadFile("/etc/kvtier/kvtier.hcl"); err != nil || string(b) != "epoch = \"2s\"\n" {
		t.Errorf("edited config after dpkg -r: %q, %v (want it kept)", b, err)
	}
	dpkg("-P", "kvtier")
	for _, p := range []string{"/etc/kvtier", "/usr/share/kvtier", "/usr/share/doc/kvtier", "/lib/systemd/system/kvtier.service"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left after dpkg -P", p)
		}
	}
	if out, _ := exec.Command("dpkg-query", "-W", "-f=${Status}", "kvtier").CombinedOutput(); strings.Contains(string(out), "installed") &&
		!strings.Contains(string(out), "not-installed") {
		t.Errorf("dpkg still knows kvtier: %s", out)
	}
}

// TestMakeInstall runs `make install-files` and `make uninstall` into a
// DESTDIR.
func TestMakeInstall(t *testing.T) {
	need(t, "make", "make")
	bin := kvtierBinary(t)
	dest := t.TempDir()
	run := func(target string) {
		t.Helper()
		cmd := exec.Command("make", "-s", "-C", "..", target, "BIN="+bin, "DESTDIR="+dest, "PREFIX=/usr")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make %s: %v\n%s", target, err, out)
		}
	}
	run("install-files")
	unit, err := os.ReadFile(filepath.Join(dest, "etc/systemd/system/kvtier.service"))
	if err != nil || !strings.Contains(string(unit), "ExecStart=/usr/bin/kvtier daemon") {
		t.Errorf("installed unit: %v", err)
	}
	for _, f := range []string{"usr/bin/kvtier", "etc/kvtier/kvtier.hcl", "usr/share/bash-completion/completions/kvtier",
		"usr/share/zsh/vendor-completions/_kvtier", "usr/share/fish/vendor_completions.d/kvtier.fish",
		"usr/share/kvtier/grafana/kvtier.json", "usr/share/kvtier/kernel-tunables.conf",
		"usr/share/kvtier/metrics-network.conf"} {
		if fi, err := os.Stat(filepath.Join(dest, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not installed: %v", f, err)
		}
	}
	// A second install keeps an edited config.
	cfg := filepath.Join(dest, "etc/kvtier/kvtier.hcl")
	if err := os.WriteFile(cfg, []byte("# mine\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	run("install-files")
	if b, _ := os.ReadFile(cfg); string(b) != "# mine\n" {
		t.Errorf("install overwrote the edited config: %q", b)
	}
	run("uninstall")
	var left []string
	_ = filepath.Walk(dest, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			left = append(left, strings.TrimPrefix(p, dest))
		}
		return nil
	})
	if len(left) != 1 || left[0] != "/etc/kvtier/kvtier.hcl" {
		t.Errorf("after uninstall, files left: %v (want only the config)", left)
	}
}
