package bpf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree creates files (path -> content) under a temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var intelCPU = map[string]string{
	"bus/event_source/devices/cpu/type":             "4\n",
	"bus/event_source/devices/cpu/events/mem-loads": "event=0xcd,umask=0x1,ldlat=3\n",
	"bus/event_source/devices/cpu/format/event":     "config:0-7\n",
	"bus/event_source/devices/cpu/format/umask":     "config:8-15\n",
	"bus/event_source/devices/cpu/format/ldlat":     "config1:0-15\n",
}

func TestDetectPMU(t *testing.T) {
	hybrid := map[string]string{}
	for k, v := range intelCPU {
		hybrid[strings.Replace(k, "/cpu/", "/cpu_core/", 1)] = v
	}
	hybrid["bus/event_source/devices/cpu_core/type"] = "8\n"
	ibs := map[string]string{"bus/event_source/devices/ibs_op/type": "11\n"}
	for _, tc := range []struct {
		name  string
		tree  map[string]string
		want  string
		pmu   PMU
		noPMU bool
	}{
		{"intel mem-loads", intelCPU, "", PMU{Kind: "pebs", Device: "cpu", Type: 4, Config: 0x1cd, Config1: 30}, false},
		{"intel hybrid", hybrid, "", PMU{Kind: "pebs", Device: "cpu_core", Type: 8, Config: 0x1cd, Config1: 30}, false},
		{"intel l3 miss", intelCPU, "pebs-l3miss", PMU{Kind: "pebs-l3miss", Device: "cpu", Type: 4, Config: 0x20d1}, false},
		{"amd ibs", ibs, "", PMU{Kind: "ibs", Device: "ibs_op", Type: 11}, false},
		{"ibs forced on intel", intelCPU, "ibs", PMU{}, true},
		{"none", map[string]string{"bus/event_source/devices/software/type": "1\n"}, "", PMU{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, tc.tree)
			got, err := DetectPMU(root, tc.want, 30)
			if tc.noPMU {
				if !errors.Is(err, ErrNoPMU) || !errors.Is(err, ErrNotSupported) {
					t.Fatalf("DetectPMU = %+v, %v; want ErrNoPMU", got, err)
				}
				if !strings.Contains(err.Error(), "ibs_op/type") {
					t.Errorf("error %q does not name what it looked for", err)
				}
				return
			}
			if err != nil || got != tc.pmu {
				t.Fatalf("DetectPMU = %+v, %v; want %+v", got, err, tc.pmu)
			}
		})
	}
}

func TestDetectPMUBadFormat(t *testing.T) {
	tree := map[string]string{}
	for k, v := range intelCPU {
		tree[k] = v
	}
	tree["bus/event_source/devices/cpu/format/ldlat"] = "config1:0-3\n" // 30 does not fit
	_, err := DetectPMU(writeTree(t, tree), "", 30)
	if err == nil || !strings.Contains(err.Error(), "format/ldlat") {
		t.Fatalf("DetectPMU = %v, want an error naming format/ldlat", err)
	}
	if _, err := DetectPMU(writeTree(t, intelCPU), "pmu9000", 30); !errors.Is(err, ErrBadOption) {
		t.Fatalf("unknown PMU kind: %v, want ErrBadOption", err)
	}
}

func TestOnlineCPUs(t *testing.T) {
	for in, want := range map[string]string{"0\n": "[0]", "0-3\n": "[0 1 2 3]", "0-1,4,6-7\n": "[0 1 4 6 7]"} {
		root := writeTree(t, map[string]string{"devices/system/cpu/online": in})
		got, err := onlineCPUs(root)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("onlineCPUs(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"3-1\n", "\n", "0,x\n"} {
		root := writeTree(t, map[string]string{"devices/system/cpu/online": bad})
		if _, err := onlineCPUs(root); err == nil || !strings.Contains(err.Error(), "cpu/online") {
			t.Errorf("onlineCPUs(%q) = %v, want an error naming cpu/online", bad, err)
		}
	}
}
