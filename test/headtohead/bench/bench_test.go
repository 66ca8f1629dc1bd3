package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
	"github.com/kvtier/kvtier/test/headtohead/kvpool"
	"github.com/kvtier/kvtier/test/headtohead/report"
	"github.com/kvtier/kvtier/test/headtohead/result"
)

func TestVMStatDelta(t *testing.T) {
	start := "nr_free_pages 100\npgmigrate_success 10\npgpromote_success 0\npgdemote_kswapd 5\nnuma_hit 7\nbad line here\n"
	end := "nr_free_pages 50\npgmigrate_success 25\npgpromote_success 3\npgdemote_kswapd 5\nnuma_hit 9\nthp_migration_success 1\n"
	got := VMStatDelta([]byte(start), []byte(end))
	want := map[string]int64{"pgmigrate_success": 15, "pgpromote_success": 3, "numa_hit": 2, "thp_migration_success": 1}
	if len(got) != len(want) {
		t.Fatalf("VMStatDelta = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	if d := VMStatDelta(nil, nil); len(d) != 1 || d["pgmigrate_success"] != 0 {
		t.Errorf("empty vmstat: %v, want pgmigrate_success 0 alone", d)
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
		err   bool
	}{
		{[]string{"kvtier-auto", "first-touch"}, "first-touch,kvtier-auto", false},
		{Names(), strings.Join(Names(), ","), false},
		{[]string{"tpp", "nope"}, "", true},
	} {
		cfgs, err := Lookup(tc.names)
		if (err != nil) != tc.err {
			t.Errorf("Lookup(%v): error %v, want error %v", tc.names, err, tc.err)
			continue
		}
		var got []string
		for _, c := range cfgs {
			got = append(got, c.Name)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("Lookup(%v) = %v, want %s", tc.names, got, tc.want)
		}
	}
}

// TestConfigsExist checks every kvtier configuration's file is there.
func TestConfigsExist(t *testing.T) {
	for _, c := range Configs {
		if c.Mode == ModeKvtier {
			if _, err := os.Stat(filepath.Join("..", "configs", c.HCL+".hcl")); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
		}
		if c.Tuning == "" || c.About == "" {
			t.Errorf("%s: no description of its tuning", c.Name)
		}
	}
}

func TestEnvFile(t *testing.T) {
	got := string(envFile(map[string]string{"B": "2", "A": "x y"}))
	if got != "export A='x y'\nexport B='2'\n" {
		t.Errorf("envFile = %q", got)
	}
}

func TestTraceHead(t *testing.T) {
	f := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(f, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{2, "a\nb\n"}, {0, "a\nb\nc\n"}, {9, "a\nb\nc\n"}} {
		got, err := traceHead(f, tc.n)
		if err != nil || string(got) != tc.want {
			t.Errorf("traceHead(%d) = %q, %v; want %q", tc.n, got, err, tc.want)
		}
	}
	if _, err := traceHead(f+".missing", 1); err == nil {
		t.Error("a missing trace gave no error")
	}
}

// fakeRun is a run with the given end-of-phase shares and figures.
func fakeRun(name string, shares [3]float64, to80 float64, pages int64, revisit float64) report.Run {
	w := &result.Report{Blocks: 4, Verified: 4, Regret: &result.Regret{RevisitShare: revisit}, Replay: &result.Replay{Node0Share: 0.5}}
	for i, n := range []string{"A1", "B", "A2"} {
		d := to80
		w.Phases = append(w.Phases, result.Phase{Name: n, Start: float64(10 * i), EndShare: shares[i], To80: &d, Migrated: pages / 4})
		w.Series = append(w.Series, result.Point{T: float64(10*i) + to80, Phase: n, Share: shares[i]})
	}
	return report.Run{Config: name, Workload: w, VMStat: map[string]int64{"pgmigrate_success": pages}, DaemonCPU: 0.5, KdamondCPU: 1}
}

func TestTargets(t *testing.T) {
	good := []report.Run{
		fakeRun("tpp", [3]float64{0.9, 1, 0.9}, 6, 1000, 0.2),
		fakeRun("damos", [3]float64{1, 1, 1}, 3, 5000, 0.1),
		fakeRun("kvtier-auto", [3]float64{1, 1, 1}, 2, 500, 0.9),
		fakeRun("kvtier-hints", [3]float64{1, 1, 1}, 1, 500, 0.9),
	}
	good[1].KdamondCPU = 10
	met := map[string]bool{}
	for _, tg := range Targets(good) {
		met[tg.Name] = tg.Met
	}
	for name, ok := range met {
		// The replay target needs the simulator's prediction.
		if !ok && !strings.HasPrefix(name, "trace replay") {
			t.Errorf("target %q not met by a run that meets it", name)
		}
	}
	bad := []report.Run{
		fakeRun("tpp", [3]float64{0.9, 1, 0.9}, 6, 1000, 0.2),
		fakeRun("damos", [3]float64{1, 1, 1}, 3, 5000, 0.1),
		fakeRun("kvtier-auto", [3]float64{0.3, 0.3, 0.3}, 9, 90000, 0.1),
	}
	bad[2].DaemonCPU = 5
	for _, tg := range Targets(bad) {
		if tg.Met && !strings.HasPrefix(tg.Name, "every checksum") {
			t.Errorf("target %q met by a run that misses it: %s", tg.Name, tg.Measured)
		}
	}
	if tg := Targets(nil); tg[len(tg)-1].Met {
		t.Error("the checksum target is met with no runs")
	}
}

func TestSimWriteTrace(t *testing.T) {
	s := Sim{Slots: 3, BlockSize: 2 << 20}
	file := filepath.Join(t.TempDir(), "t.jsonl")
	if err := s.writeTrace(file, []kvpool.Access{{ID: 9, Slot: 1, Hit: false}, {ID: 9, Slot: 1, Hit: true}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := trace.NewJSONL(f, file)
	var got []string
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%d:%d:%v:%d", rec.Time, rec.Block, rec.Write, rec.Meta.Size))
	}
	want := "1:0:false:2097152 2:1:false:2097152 3:2:false:2097152 4:1:true:2097152 5:1:false:2097152"
	if strings.Join(got, " ") != want {
		t.Errorf("trace %v, want %s", got, want)
	}
}

func TestTargetsStrongestDAMOS(t *testing.T) {
	runs := []report.Run{
		fakeRun("tpp", [3]float64{0.9, 0.9, 0.9}, 6, 1000, 0.2),
		fakeRun("damos", [3]float64{0.8, 0.8, 0.8}, 9, 5000, 0.1),
		fakeRun("damos-hmsdk", [3]float64{1, 1, 1}, 3, 5000, 0.1),
		fakeRun("kvtier-auto", [3]float64{0.95, 0.95, 0.95}, 2, 500, 0.9),
	}
	for _, tg := range Targets(runs) {
		if strings.Contains(tg.Name, "at or above TPP") {
			if tg.Met || !strings.Contains(tg.Measured, "damos-hmsdk 1.00") {
				t.Errorf("%s: met %v, %s; want unmet against damos-hmsdk", tg.Name, tg.Met, tg.Measured)
			}
			return
		}
	}
	t.Error("no end-of-phase target")
}
