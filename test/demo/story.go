package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/kvtier/kvtier/test/guest"
)

// story turns the guest's console into the demo's narration: it is the
// console's writer, splits it into lines and tells each result as it
// arrives.
type story struct {
	out     io.Writer
	mu      sync.Mutex
	partial []byte
	last    map[string]float64 // the previous metrics snapshot
}

func newStory(out io.Writer) *story { return &story{out: out} }

func (s *story) say(format string, a ...any) { fmt.Fprintf(s.out, format, a...) }

func (s *story) chapter(title string) { s.say("\n\033[1m== %s\033[0m\n", title) }

// indent prints text indented by two spaces.
func (s *story) indent(text []byte) {
	for _, l := range strings.Split(strings.TrimRight(string(text), "\n"), "\n") {
		s.say("  %s\n", l)
	}
}

// Write receives the console.
func (s *story) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.line(string(s.partial[:i]))
		s.partial = s.partial[i+1:]
	}
	return len(p), nil
}

func (s *story) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.partial) > 0 {
		s.line(string(s.partial))
		s.partial = nil
	}
}

func (s *story) line(text string) {
	r, ok, err := guest.ParseResultLine(text)
	switch {
	case err != nil:
		s.say("  (unreadable result line: %v)\n", err)
	case ok:
		s.result(&r)
	case strings.Contains(text, "Kernel panic"):
		s.say("  guest: %s\n", strings.TrimSpace(text))
	}
}

// result tells one step.
func (s *story) result(r *guest.Result) {
	if r.RC != 0 {
		s.say("  ! step %s failed (exit %d): %s\n", r.Name, r.RC, strings.TrimSpace(string(r.Output)))
		return
	}
	switch name := r.Name; {
	case name == "uptime-start":
		s.chapter("The machine")
		s.say("  the guest's kernel booted in %s s; node 0 is DRAM with the CPUs, node 1 a CPU-less CXL expander\n",
			strings.Fields(string(r.Output) + " ?")[0])
	case name == "topology":
		s.say("  kvtier topology:\n")
		s.indent(r.Output)
	case name == "daemon-up-demo":
		s.chapter("kvtier daemon")
	case name == "wait-demo":
		s.say("  the workload filled a 64 MiB KV arena: 32 blocks of 2 MiB, each with its CRC-32C\n")
	case name == "where-start":
		s.chapter("The KV arena before tiering (move_pages queries from the probe)")
		s.where(r.Output)
	case name == "register":
		s.say("  the workload registers the arena with the daemon (tenant a, block 0 pinned); the fast tier is 24 MiB, 18 MiB of it for tenant a\n")
	case name == "status-start":
		s.chapter("One second later: kvtier status")
		s.indent(r.Output)
	case name == "placement-start":
		s.say("  kvtier placement --region 1:\n")
		s.indent(r.Output)
	case name == "hot-1":
		s.chapter("Phase 1: the engine reads its hot set (blocks 0-7) again and again")
		s.phase(r)
	case strings.HasPrefix(name, "hot-"), strings.HasPrefix(name, "hot2-"):
		s.phase(r)
	case name == "burst":
		s.chapter("Phase 2: a burst revisits blocks that were just demoted (the regret case)")
		s.phase(r)
	case name == "class":
		s.chapter("Phase 3: blocks 0-7 finish thinking (think_complete), the hot set moves to blocks 8-15")
		s.phase(r)
	case name == "tenant2":
		s.chapter("Phase 4: a second tenant (b) arrives with a 16 MiB arena and a 6 MiB quota")
		s.phase(r)
	case strings.HasPrefix(name, "metrics-"):
		s.metrics(r)
	case strings.HasPrefix(name, "placement-"):
		s.indent(r.Output)
	case name == "where-end":
		s.chapter("The KV arena after (move_pages queries from the probe)")
		s.where(r.Output)
	case name == "status-end":
		s.chapter("kvtier status at the end")
		s.indent(r.Output)
	case name == "events":
		s.events(r.Output)
	case name == "report-demo":
		s.report(r)
	}
}

// where prints the probe's view of the arena as a strip: one character a
// block, 0 or 1 for its node.
func (s *story) where(out []byte) {
	var w struct {
		Arenas []struct {
			Tenant string         `json:"tenant"`
			Nodes  map[string]int `json:"nodes"`
			Blocks []int          `json:"blocks"`
		} `json:"arenas"`
	}
	if err := json.Unmarshal(out, &w); err != nil || len(w.Arenas) == 0 {
		s.say("  placement: %s\n", out)
		return
	}
	a := w.Arenas[0]
	var b strings.Builder
	for _, n := range a.Blocks {
		switch {
		case n >= 0 && n <= 9:
			b.WriteByte(byte('0' + n))
		default:
			b.WriteByte('?')
		}
	}
	nodes := make([]string, 0, len(a.Nodes))
	for n, c := range a.Nodes {
		nodes = append(nodes, fmt.Sprintf("%d on node %s", c, n))
	}
	sort.Strings(nodes)
	s.say("  tenant %s, one digit a block (its NUMA node): [%s]\n  4 KiB pages: %s\n", a.Tenant, b.String(), strings.Join(nodes, ", "))
}

// phaseReport is the workload's report of one phase.
type phaseReport struct {
	Name       string   `json:"name"`
	Reads      int      `json:"reads"`
	ReadMB     float64  `json:"read_mb"`
	Blocks     []string `json:"blocks"`
	Mismatches int      `json:"mismatches"`
	OffFast    int      `json:"off_fast"`
	Note       string   `json:"note"`
	Seconds    float64  `json:"seconds"`
}

func (s *story) phase(r *guest.Result) {
	var p phaseReport
	if err := json.Unmarshal(r.Output, &p); err != nil {
		s.say("  %s: %s\n", r.Name, r.Output)
		return
	}
	what := fmt.Sprintf("%d reads (%.0f MB) of blocks %s in %.1fs, %d checksum mismatches", p.Reads, p.ReadMB, span(p.Blocks), p.Seconds, p.Mismatches)
	if p.OffFast > 0 {
		what += fmt.Sprintf("; %d of them were on node 1", p.OffFast)
	}
	if p.Note != "" {
		what += "; " + p.Note
	}
	s.say("  %-7s %s\n", r.Name, what)
}

// span shortens a block list: "a:0 .. a:7 (8 blocks)".
func span(blocks []string) string {
	switch len(blocks) {
	case 0:
		return "none"
	case 1, 2, 3:
		return strings.Join(blocks, ", ")
	}
	return fmt.Sprintf("%s .. %s (%d blocks)", blocks[0], blocks[len(blocks)-1], len(blocks))
}

// metrics tells what the daemon did since the previous snapshot.
func (s *story) metrics(r *guest.Result) {
	var m map[string]float64
	if err := json.Unmarshal(r.Output, &m); err != nil {
		s.say("  metrics: %v\n", err)
		return
	}
	d := func(k string) float64 { return m[k] - s.last[k] }
	mib := func(v float64) string { return fmt.Sprintf("%.0f MiB", v/(1<<20)) }
	s.say("  kvtier moved %s to node 1 and %s to node 0 (%s pages in all); %.0f regret events (%.0f so far), re-promotion ratio %.2f\n",
		mib(d(`kvtier_migrated_bytes_total{direction="demote"}`)), mib(d(`kvtier_migrated_bytes_total{direction="promote"}`)),
		fmt.Sprint(m[`kvtier_migrated_pages_total{direction="demote"}`]+m[`kvtier_migrated_pages_total{direction="promote"}`]),
		d("kvtier_regret_events_total"), m["kvtier_regret_events_total"], m["kvtier_repromotion_ratio"])
	rate := 0.0
	if de := d("kvtier_epochs_total"); de > 0 {
		rate = (d(`kvtier_migrated_bytes_total{direction="demote"}`) + d(`kvtier_migrated_bytes_total{direction="promote"}`)) / (de * demoEpoch) / (1 << 20)
	}
	s.say("  budgets: fast tier %.0f%% used (%.0f blocks fast, %.0f slow); migrations averaged %.1f MiB/s over %.0f epochs (limit 64 MiB/s); %.0f hint calls sampled by the uprobe\n",
		100*m[`kvtier_budget_usage_ratio{budget="fast_bytes"}`], m[`kvtier_blocks{tier="fast"}`], m[`kvtier_blocks{tier="slow"}`],
		rate, d("kvtier_epochs_total"), sumPrefix(m, "kvtier_sampler_events_total"))
	s.last = m
}

// demoEpoch is the epoch of configs/demo.hcl in seconds.
const demoEpoch = 0.5

func sumPrefix(m map[string]float64, family string) float64 {
	v := 0.0
	for k, x := range m {
		if strings.HasPrefix(k, family) {
			v += x
		}
	}
	return v
}

// events summarises the daemon's event stream.
func (s *story) events(out []byte) {
	s.chapter("The daemon's event stream (kvtier events)")
	count := map[string]int{}
	regrets := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var ev struct {
			Type   string  `json:"type"`
			Tenant string  `json:"tenant"`
			Block  *uint64 `json:"block"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		count[ev.Type]++
		if ev.Type == "regret" && ev.Block != nil {
			regrets[fmt.Sprintf("%s:%02d", ev.Tenant, *ev.Block)]++
		}
	}
	types := make([]string, 0, len(count))
	for t := range count {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		s.say("  %-22s %d\n", t, count[t])
	}
	if len(regrets) > 0 {
		list := make([]string, 0, len(regrets))
		for b, n := range regrets {
			list = append(list, fmt.Sprintf("%s x%d", b, n))
		}
		sort.Strings(list)
		s.say("  regretted demotions (a block read again soon after it left DRAM), per block:\n    %s\n", strings.Join(list, ", "))
	}
}

// workloadReport is the workload's final report.
type workloadReport struct {
	Verify struct {
		Passes     int      `json:"passes"`
		Blocks     int      `json:"blocks"`
		Mismatched []string `json:"mismatched"`
	} `json:"verify"`
	HintCalls uint64   `json:"hint_calls"`
	OK        bool     `json:"ok"`
	Errors    []string `json:"errors"`
}

func (s *story) report(r *guest.Result) {
	s.chapter("Verdict")
	var rep workloadReport
	if err := json.Unmarshal(r.Output, &rep); err != nil {
		s.say("  the workload's report is unreadable: %v\n", err)
		return
	}
	if rep.OK {
		s.say("  \033[32mPASS\033[0m: %d verification passes over all %d blocks, every CRC-32C matched after every migration\n",
			rep.Verify.Passes, rep.Verify.Blocks)
	} else {
		s.say("  \033[31mFAIL\033[0m: mismatched blocks %v, errors %v\n", rep.Verify.Mismatched, rep.Errors)
	}
}

// verdict checks the results once the guest is off.
func (s *story) verdict(rs *guest.Results) (bool, error) {
	res, ok := rs.Get("report-demo")
	if !ok {
		return false, fmt.Errorf("the guest reported no workload report (script exit %d)", rs.ExitCode)
	}
	var rep workloadReport
	if err := res.JSON(&rep); err != nil {
		return false, err
	}
	return rep.OK && rs.ExitCode == 0, nil
}
