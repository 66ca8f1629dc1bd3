package sim

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadConfig is returned for an invalid simulation or grid setting.
var ErrBadConfig = errors.New("bad simulation config")

// Tier is one level of the memory hierarchy. Latencies are in
// milliseconds, bandwidth in bytes per millisecond (1 GB/s = 1e6 B/ms).
type Tier struct {
	Name      string  `json:"name"`
	Capacity  int64   `json:"capacity_bytes"`
	ReadMs    float64 `json:"read_ms"`
	WriteMs   float64 `json:"write_ms"`
	Bandwidth float64 `json:"bandwidth_bytes_per_ms"`
}

// Hierarchy is an ordered list of tiers, fastest first.
type Hierarchy struct {
	Preset   string `json:"preset"`
	Scenario string `json:"scenario"`
	Tiers    []Tier `json:"tiers"`
}

// The kvlab preset is the hierarchy of the seed study (seeds/000).
var kvlab = []Tier{
	{"tier0", 128_000, 0.02, 0.02, 80_000},
	{"tier1", 256_000, 0.06, 0.06, 40_000},
	{"tier2_host_ram", 1_000_000, 0.4, 0.35, 8_000},
	{"tier3_nvme", 8_000_000, 2.5, 2.0, 2_000},
}

// The cxl preset models a host with local DRAM, a CXL memory expander and
// (cxl-ssd) an NVMe SSD that holds spilled or recomputable KV blocks.
// Capacities are for the KV cache, not the whole machine.
//
//   - DRAM: 100 ns idle load-to-use latency, the figure Pond (Li et al.,
//     ASPLOS'23, fig. 2) and Sun et al. ("Demystifying CXL Memory with
//     Genuine CXL-Ready Systems and Devices", MICRO'23) measure for local
//     DDR5 on Sapphire Rapids; 300 GB/s, eight DDR5-4800 channels at
//     38.4 GB/s each (JEDEC JESD79-5).
//   - CXL: 250 ns, within the 214-394 ns Sun et al. measured on three
//     CXL 1.1/2.0 devices, and Pond's local DRAM plus 70-90 ns port and
//     controller latency plus the device's own DRAM; 32 GB/s, a CXL x8
//     PCIe 5.0 expander (Micron CZ120 datasheet: up to 36 GB/s; Sun et al.
//     measured 20-52 GB/s across devices).
//   - SSD: 80 us read and 20 us write latency, 7 GB/s, a PCIe 4.0 NVMe
//     drive (Samsung 990 PRO datasheet: 7,450 MB/s sequential read, 4 KiB
//     random read latency in the tens of microseconds, writes absorbed by
//     its SLC cache).
var cxl = []Tier{
	{"dram", 128 << 30, 100e-6, 100e-6, 300e6},
	{"cxl", 512 << 30, 250e-6, 250e-6, 32e6},
}

var ssd = Tier{"nvme_ssd", 8 << 40, 80e-3, 20e-3, 7e6}

// Scenarios divide every capacity, as in the seed study.
var scenarios = map[string]int64{"base": 1, "medium": 3, "constrained": 6}

// Presets lists the preset names.
func Presets() []string { return []string{"kvlab", "cxl", "cxl-ssd"} }

// Scenarios lists the scenario names.
func Scenarios() []string { return []string{"base", "medium", "constrained"} }

// NewHierarchy returns a preset under a scenario: base keeps the preset's
// capacities, medium divides them by 3 and constrained by 6 (integer
// division, as the seed study).
func NewHierarchy(preset, scenario string) (Hierarchy, error) {
	var tiers []Tier
	switch strings.ToLower(preset) {
	case "kvlab":
		tiers = kvlab
	case "cxl":
		tiers = cxl
	case "cxl-ssd":
		tiers = append(append([]Tier{}, cxl...), ssd)
	default:
		return Hierarchy{}, fmt.Errorf("%w: preset %q: want kvlab, cxl or cxl-ssd", ErrBadConfig, preset)
	}
	if scenario == "" {
		scenario = "base"
	}
	div, ok := scenarios[scenario]
	if !ok {
		return Hierarchy{}, fmt.Errorf("%w: scenario %q: want base, medium or constrained", ErrBadConfig, scenario)
	}
	h := Hierarchy{Preset: strings.ToLower(preset), Scenario: scenario, Tiers: append([]Tier{}, tiers...)}
	for i := range h.Tiers {
		h.Tiers[i].Capacity /= div
	}
	return h, nil
}

// Validate checks that every tier has a positive capacity and bandwidth and
// non-negative latencies.
func (h Hierarchy) Validate() error {
	if len(h.Tiers) == 0 {
		return fmt.Errorf("%w: hierarchy has no tiers", ErrBadConfig)
	}
	for i, t := range h.Tiers {
		if t.Capacity <= 0 || t.Bandwidth <= 0 || t.ReadMs < 0 || t.WriteMs < 0 {
			return fmt.Errorf("%w: tier %d (%s): want capacity > 0, bandwidth > 0, latencies >= 0",
				ErrBadConfig, i, t.Name)
		}
	}
	return nil
}

// readMs is the cost of an access served in place by tier t: its read
// latency plus the block's bytes at its bandwidth (a block read streams
// the whole block).
func (h *Hierarchy) readMs(t int, size int64) float64 {
	return h.Tiers[t].ReadMs + float64(size)/h.Tiers[t].Bandwidth
}

// transferMs is the cost of moving size bytes from tier src to tier dst:
// source read + destination write + size over the smaller bandwidth + the
// quantisation decode penalty.
func (h *Hierarchy) transferMs(src, dst int, size int64, q Quant) float64 {
	s, d := &h.Tiers[src], &h.Tiers[dst]
	return s.ReadMs + d.WriteMs + float64(size)/min(s.Bandwidth, d.Bandwidth) + q.DecodeMs()
}

// coldMs is the cost of a cold miss placed in tier dst (no tier holds the
// block: it is recomputed or fetched from outside the hierarchy): four
// times dst's read latency plus size at half dst's bandwidth, plus decode.
func (h *Hierarchy) coldMs(dst int, size int64, q Quant) float64 {
	d := &h.Tiers[dst]
	return 4*d.ReadMs + float64(size)/(d.Bandwidth/2) + q.DecodeMs()
}
