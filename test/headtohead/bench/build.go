package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kvtier/kvtier/test/guest"
)

// programs are the guest's static binaries: file name and Go package.
var programs = []struct{ name, pkg string }{
	{"kvtier", "."},
	{"probe", "./test/probe"},
	{"hhwork", "./test/headtohead/hhwork"},
}

// Build builds the guest's binaries with CGO_ENABLED=0 into dir from the
// module at root; a program whose file exists in prebuilt (a directory,
// may be empty) is copied from there instead, so a run can use a kvtier
// built from another tree.
func Build(root, dir, prebuilt string) error {
	for _, p := range programs {
		out := filepath.Join(dir, p.name)
		if prebuilt != "" {
			if b, err := os.ReadFile(filepath.Join(prebuilt, p.name)); err == nil {
				if err := os.WriteFile(out, b, 0o755); err != nil {
					return fmt.Errorf("copying prebuilt %s: %w", p.name, err)
				}
				continue
			}
		}
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, p.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s (CGO_ENABLED=0 go build %s): %w\n%s", p.name, p.pkg, err, msg)
		}
	}
	return nil
}

// traceHead returns the first n lines of the trace file (all for n <= 0).
func traceHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	defer f.Close()
	var out bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for i := 0; sc.Scan() && (n <= 0 || i < n); i++ {
		out.Write(sc.Bytes())
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the trace %s: %w", path, err)
	}
	return out.Bytes(), nil
}

// envFile is /scenario.env: one export a variable, sorted.
func envFile(vars map[string]string) []byte {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s='%s'\n", k, vars[k])
	}
	return []byte(b.String())
}

// initramfs writes the guest of configuration c to out: busybox, the
// binaries in bin, test/scenarios' init and lib, the benchmark's scripts,
// the kvtier config and the trace's head.
func (b *bench) initramfs(c Config, hcl, out string) error {
	hh := filepath.Join(b.opt.Root, "test", "headtohead")
	sc := filepath.Join(b.opt.Root, "test", "scenarios")
	initScript, err := os.ReadFile(filepath.Join(sc, "init.sh"))
	if err != nil {
		return fmt.Errorf("guest init: %w", err)
	}
	hints := "0"
	if c.Hints {
		hints = "1"
	}
	env := map[string]string{"HH_MODE": c.Mode, "HH_CONFIG": c.HCL, "HH_HINTS": hints, "HH_WL": b.opt.Phases.Flags()}
	for k, v := range c.Env {
		env[k] = v
	}
	if b.opt.ProfileDir != "" && c.Mode == ModeKvtier {
		env["HH_PROFILE"] = "/run/kvtier.pprof"
	}
	items := []guest.Item{
		{Path: "scenario.sh", Source: filepath.Join(hh, "scripts", "run.sh"), Mode: 0o644},
		{Path: "lib.sh", Source: filepath.Join(sc, "lib.sh"), Mode: 0o644},
		{Path: "hh/kernel.sh", Source: filepath.Join(hh, "scripts", "kernel.sh"), Mode: 0o644},
		{Path: "hh/damos.sh", Source: filepath.Join(hh, "scripts", "damos.sh"), Mode: 0o644},
		{Path: "hh/trace.jsonl", Data: b.trace},
		{Path: "scenario.env", Data: envFile(env)},
	}
	if hcl != "" {
		items = append(items, guest.Item{Path: "etc/kvtier/" + c.HCL + ".hcl", Source: hcl, Mode: 0o644})
	}
	for _, p := range programs {
		items = append(items, guest.Item{Path: "bin/" + p.name, Source: filepath.Join(b.bin, p.name)})
	}
	r := &guest.Initramfs{Busybox: guest.DefaultBusybox, Init: string(initScript), Items: items}
	return r.WriteFile(out)
}

// DefaultTrace is the Mooncake conversation trace: the whole one next to
// the repository (../shared/traces) when it is there, else the head of it
// under test/headtohead/testdata.
func DefaultTrace(root string) string {
	whole := filepath.Join(root, "..", "shared", "traces", "mooncake_conversation_trace.jsonl")
	if _, err := os.Stat(whole); err == nil {
		return whole
	}
	return filepath.Join(root, "test", "headtohead", "testdata", "mooncake_conversation_trace.head.jsonl")
}
