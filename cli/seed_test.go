package cli

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/policy/trace"
)

// TestSeedDefault checks that every command's --seed defaults to
// trace.DefaultSeed, that the help says so, and that a workload without
// seed= gets that seed in trace gen, trace stats and sim alike.
func TestSeedDefault(t *testing.T) {
	want := strconv.FormatInt(trace.DefaultSeed, 10)
	seeds := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("seed"); f != nil {
			seeds++
			if f.DefValue != want || !strings.Contains(f.Usage, "the same default in every command") {
				t.Errorf("%s --seed: default %s, usage %q; want %s and a note that every command shares it",
					c.CommandPath(), f.DefValue, f.Usage, want)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot())
	if seeds < 2 {
		t.Errorf("%d commands have --seed, want trace gen and sim at least", seeds)
	}
	for _, args := range [][]string{{"sim", "--help"}, {"trace", "gen", "--help"}, {"trace", "stats", "--help"}} {
		if _, out, _ := runCLI(args...); !strings.Contains(out, want+", every kvtier command") &&
			!strings.Contains(out, want+", the default of every kvtier command") &&
			!strings.Contains(out, "seed "+want+" (the default of every") {
			t.Errorf("%v does not give the default seed %s:\n%s", args, want, out)
		}
	}

	const spec = "adversarial_burst:pages=40,steps=300"
	seeded := spec + ",seed=" + want
	code, out, errs := runCLI("trace", "gen", "--workload", spec)
	if code != ExitOK || !reflect.DeepEqual(readAll(t, trace.NewJSONL(strings.NewReader(out), "stdout")), workloadRecords(t, seeded)) {
		t.Errorf("trace gen %s: exit %d (%s), records are not those of %s", spec, code, errs, seeded)
	}
	stats := func(spec string) statsJSON {
		_, out, _ := runCLI("trace", "stats", "--json", "--workload", spec)
		var s statsJSON
		decodeStrict(t, out, &s, "trace", "accesses")
		return s
	}
	def, exp, zero := stats(spec), stats(seeded), stats(spec+",seed=0")
	if !reflect.DeepEqual(def.Stats, exp.Stats) || reflect.DeepEqual(def.Stats, zero.Stats) {
		t.Errorf("trace stats --workload %s: %+v, want those of %s: %+v (seed 0: %+v)", spec, def, seeded, exp, zero.Stats)
	}
	a := simJSON(t, "--workload", spec, "--policy", "lru", "--reference", "none")
	b := simJSON(t, "--workload", seeded, "--policy", "lru", "--reference", "none")
	if len(a) != 1 || len(b) != 1 || a[0].FastHitRatio != b[0].FastHitRatio || a[0].MeanLatencyMs != b[0].MeanLatencyMs {
		t.Errorf("sim --workload %s: %+v, want the result of %s: %+v", spec, a, seeded, b)
	}
}

// TestSeedPrecedence checks that a workload's seed= wins over --seed in
// trace gen as in sim, and that --seed applies to a spec without one.
func TestSeedPrecedence(t *testing.T) {
	const spec = "adversarial_burst:pages=40,steps=300"
	tests := []struct {
		name string
		args []string
		want string // the spec whose records trace gen must write
	}{
		{"spec seed wins", []string{"--workload", spec + ",seed=7", "--seed", "9"}, spec + ",seed=7"},
		{"flag seeds a spec without one", []string{"--workload", spec, "--seed", "9"}, spec + ",seed=9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"trace", "gen"}, tt.args...)...)
			if code != ExitOK || !reflect.DeepEqual(readAll(t, trace.NewJSONL(strings.NewReader(out), "stdout")), workloadRecords(t, tt.want)) {
				t.Errorf("trace gen %v: exit %d (%s), records are not those of %s", tt.args, code, errs, tt.want)
			}
			got := simJSON(t, append(tt.args, "--policy", "lru", "--reference", "none")...)
			want := simJSON(t, "--workload", tt.want, "--policy", "lru", "--reference", "none")
			if len(got) != 1 || len(want) != 1 || got[0].MeanLatencyMs != want[0].MeanLatencyMs {
				t.Errorf("sim %v: %+v, want the result of %s: %+v", tt.args, got, tt.want, want)
			}
		})
	}
}
