package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

func TestLogOverrides(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		cfg  LogConfig
		opts Options
		want LogConfig
	}{
		{"none", LogConfig{Level: "debug", JSON: true}, Options{}, LogConfig{Level: "debug", JSON: true}},
		{"level", LogConfig{Level: "debug"}, Options{LogLevel: "warn"}, LogConfig{Level: "warn"}},
		{"json on", LogConfig{Level: "info"}, Options{LogJSON: &yes}, LogConfig{Level: "info", JSON: true}},
		{"json off", LogConfig{Level: "info", JSON: true}, Options{LogJSON: &no}, LogConfig{Level: "info"}},
		{"both", LogConfig{Level: "error"}, Options{LogLevel: "trace", LogJSON: &yes}, LogConfig{Level: "trace", JSON: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Log = tt.cfg
			if got := cfg.withOverrides(tt.opts).Log; got != tt.want {
				t.Errorf("log config %+v, want %+v", got, tt.want)
			}
			if cfg.Log != tt.cfg {
				t.Errorf("withOverrides changed the config it was given: %+v", cfg.Log)
			}
		})
	}
	if _, err := New(DefaultConfig(), Options{LogLevel: "loud"}); err == nil || !strings.Contains(err.Error(), "want one of trace") {
		t.Errorf("New with log level loud = %v, want an error naming the levels", err)
	}
}

// TestLogOverridesHoldOnReload: the command line's level and format win
// over the config's, at start and after a reload that changes log.level.
func TestLogOverridesHoldOnReload(t *testing.T) {
	skipUnlessRoot(t)
	cfg, err := ParseConfig("log.hcl", []byte("sampler \"fault\" {}\nlog {\n  level = \"error\"\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := &testutil.SyncBuffer{}
	yes := true
	d, err := New(cfg, Options{LogLevel: "info", LogJSON: &yes, LogOutput: out})
	if err != nil {
		t.Fatal(err)
	}
	defer d.closeAll()
	lines := jsonLines(t, out.String())
	if len(lines) == 0 || !hasLevel(lines, "info") {
		t.Fatalf("no info line in JSON at --log-level info over level = \"error\":\n%s", out)
	}
	next, err := ParseConfig("log.hcl", []byte("sampler \"fault\" {}\nlog {\n  level = \"debug\"\n  json = false\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Reload(next); err != nil {
		t.Fatal(err)
	}
	if l := d.log.GetLevel(); l != hclog.Info {
		t.Errorf("level after a reload to debug = %v, want info (the override)", l)
	}
	if c := d.Config(); c.Log.Level != "info" || !c.Log.JSON {
		t.Errorf("running log config %+v, want the overrides", c.Log)
	}
	if strings.Contains(out.String(), "log.json") {
		t.Errorf("reload warned about log.json though the override fixes it:\n%s", out)
	}
}

// jsonLines parses every line of s as a JSON object.
func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func hasLevel(lines []map[string]any, level string) bool {
	for _, l := range lines {
		if l["@level"] == level {
			return true
		}
	}
	return false
}

// TestBinaryLogFlags runs `kvtier daemon --log-json --log-level warn` over
// a config asking for debug text: only warnings and errors, as JSON.
func TestBinaryLogFlags(t *testing.T) {
	skipUnlessRoot(t)
	bin := testutil.Binary(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "kvtier.hcl")
	os.WriteFile(cfgPath, []byte(persistConfig(dir)+"log {\n  level = \"debug\"\n}\n"), 0o600)
	out, err := exec.Command(bin, "daemon", "--config", cfgPath, "--log-level", "loud").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--log-level") {
		t.Fatalf("--log-level loud: %v, want exit 2 naming the flag\n%s", err, out)
	}

	sock := filepath.Join(dir, "k.sock")
	bd := startBinaryDaemon(t, bin, "--config", cfgPath, "--socket", sock, "--metrics-addr", "127.0.0.1:0",
		"--log-json", "--log-level", "warn")
	logs := bd.logs
	c := api.NewClient(sock)
	defer c.Close()
	var st api.Status
	testutil.Eventually(t, 15*time.Second, "the daemon's API", func() bool {
		st, err = c.Status(context.Background())
		return err == nil
	})
	bd.stop(t)
	lines := jsonLines(t, logs.String())
	for _, l := range lines {
		if lv := l["@level"]; lv != "warn" && lv != "error" {
			t.Errorf("%v line at --log-level warn: %v", lv, l)
		}
	}
	if st.SingleNode && !hasLevel(lines, "warn") {
		t.Errorf("no warning that one memory node moves nothing:\n%s", logs)
	}
}
