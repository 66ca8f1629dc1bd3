package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// sample is one whole-process run of a tool.
type sample struct {
	wall   time.Duration
	rssKiB int64
	hit    float64
}

// row is one policy's figures: kvtier's and cachesim's samples.
type row struct {
	policy           string
	requests         int
	kvtier, cachesim []sample
}

// measure runs each policy in both tools o.rounds times, alternating
// which goes first, and returns the samples.
func measure(o options, requests int) ([]row, error) {
	dir, err := os.MkdirTemp("", "simbench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var rows []row
	for _, pol := range strings.Split(o.policies, ",") {
		r := row{policy: pol, requests: requests}
		for round := range o.rounds {
			tools := []func() error{
				func() error { s, err := runKvtier(o, pol); r.kvtier = append(r.kvtier, s); return err },
				func() error { s, err := runCachesim(o, pol, dir); r.cachesim = append(r.cachesim, s); return err },
			}
			if round%2 == 1 {
				slices.Reverse(tools)
			}
			for _, f := range tools {
				if err := f(); err != nil {
					return nil, err
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// timed runs cmd to completion and returns its wall time, peak RSS and
// standard output.
func timed(cmd *exec.Cmd) (sample, []byte, error) {
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start)}
	if err != nil {
		return s, nil, fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, lastLines(errs.String()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rssKiB = ru.Maxrss // KiB on Linux
	}
	return s, out.Bytes(), nil
}

func runKvtier(o options, pol string) (sample, error) {
	cmd := exec.Command(o.kvtier, "sim", "--trace", o.trace, "--policy", pol, "--capacity-blocks",
		strconv.Itoa(o.capacity), "--reference", "none", "--json")
	s, out, err := timed(cmd)
	if err != nil {
		return s, err
	}
	var rs []struct {
		Policy string  `json:"policy"`
		Hit    float64 `json:"fast_hit_ratio"`
	}
	if err := json.Unmarshal(out, &rs); err != nil || len(rs) != 1 {
		return s, fmt.Errorf("kvtier sim output (%v): %s", err, lastLines(string(out)))
	}
	s.hit = rs[0].Hit
	return s, nil
}

var missRatio = regexp.MustCompile(`miss ratio ([0-9.]+)`)

func runCachesim(o options, pol, dir string) (sample, error) {
	cmd := exec.Command(o.cachesim, o.trace, "csv", pol, strconv.Itoa(o.capacity), "-t",
		"time-col=1,obj-id-col=2,obj-size-col=4,has-header=true")
	cmd.Dir = dir // it writes result files next to its working directory
	s, out, err := timed(cmd)
	if err != nil {
		return s, err
	}
	m := missRatio.FindSubmatch(out)
	if m == nil {
		return s, fmt.Errorf("cachesim output has no miss ratio: %s", lastLines(string(out)))
	}
	miss, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return s, fmt.Errorf("cachesim miss ratio: %w", err)
	}
	s.hit = 1 - miss
	return s, nil
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-3):], "\n")
}

// median returns the median wall time of ss and their largest peak RSS.
func median(ss []sample) (time.Duration, int64) {
	walls := make([]time.Duration, len(ss))
	var rss int64
	for i, s := range ss {
		walls[i], rss = s.wall, max(rss, s.rssKiB)
	}
	slices.Sort(walls)
	return walls[len(walls)/2], rss
}

func printRows(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tkvtier acc/s\tcachesim acc/s\tratio\tkvtier RSS MiB\tcachesim RSS MiB\tkvtier hit\tcachesim hit\t")
	for _, r := range rows {
		kw, krss := median(r.kvtier)
		cw, crss := median(r.cachesim)
		ka, ca := float64(r.requests)/kw.Seconds(), float64(r.requests)/cw.Seconds()
		fmt.Fprintf(tw, "%s\t%.2fM\t%.2fM\t%.2fx\t%.0f\t%.0f\t%.4f\t%.4f\t\n", r.policy, ka/1e6, ca/1e6, ka/ca,
			float64(krss)/1024, float64(crss)/1024, r.kvtier[0].hit, r.cachesim[0].hit)
	}
	tw.Flush()
}
