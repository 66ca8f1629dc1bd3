package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Sample is one scrape of the daemon's metrics: the kvtier_ series (no
// histogram buckets) by their full name with labels, and when it was taken.
// In a scrape stream only the series that changed since the previous
// sample are listed (the serial console is slow under TCG); a reader
// carries the others forward.
type Sample struct {
	// T is seconds since the scraper started; Unix is the wall clock.
	T       float64            `json:"t"`
	Unix    float64            `json:"unix"`
	Metrics map[string]float64 `json:"m,omitempty"`
	Err     string             `json:"err,omitempty"`
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

// scrapeOnce reads the Prometheus text exposition at url.
func scrapeOnce(url string) (map[string]float64, error) {
	resp, err := httpClient.Get(url)
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scraping %s: %s", url, resp.Status)
	}
	return parseExposition(resp.Body)
}

// parseExposition keeps the kvtier_ samples of a text exposition, without
// histogram buckets.
func parseExposition(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "kvtier_") || strings.Contains(line, "_bucket{") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics line %q: %w", line, err)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

// scrape writes one Sample a line to stdout every interval until SIGTERM
// or SIGINT (a failed scrape is a line with err, so a dead daemon shows).
func scrape(url string, interval time.Duration) error {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	enc := json.NewEncoder(os.Stdout)
	start := time.Now()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	prev := map[string]float64{}
	for {
		now := time.Now()
		s := Sample{T: now.Sub(start).Seconds(), Unix: float64(now.UnixNano()) / 1e9}
		m, err := scrapeOnce(url)
		if err != nil {
			s.Err = err.Error()
		}
		s.Metrics = changed(prev, m)
		if m != nil {
			prev = m
		}
		if err := enc.Encode(s); err != nil {
			return err
		}
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
	}
}

// waitMetric polls url until the sample name reaches at least min.
func waitMetric(url, name string, min float64, limit time.Duration) (map[string]float64, error) {
	deadline := time.Now().Add(limit)
	for {
		m, err := scrapeOnce(url)
		if err == nil && m[name] >= min {
			return m, nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("%s is %v", name, m[name])
			}
			return m, fmt.Errorf("waiting %s for %s >= %v: %w", limit, name, min, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitEpochs waits until the daemon's kvtier_epochs_total is n above its
// value now, so a script steps by the daemon's epochs, not by wall time
// (the length of an epoch in wall time varies under TCG).
func waitEpochs(url string, n float64, limit time.Duration) (map[string]float64, error) {
	m, err := scrapeOnce(url)
	if err != nil {
		return nil, fmt.Errorf("waiting for %v epochs: %w", n, err)
	}
	return waitMetric(url, "kvtier_epochs_total", m["kvtier_epochs_total"]+n, limit)
}

// changed returns the series of cur whose value differs from prev (all of
// them for the first sample); nil when cur is nil (a failed scrape).
func changed(prev, cur map[string]float64) map[string]float64 {
	if cur == nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range cur {
		if old, ok := prev[k]; !ok || old != v {
			out[k] = v
		}
	}
	return out
}
