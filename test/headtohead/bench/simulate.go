package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
	"github.com/kvtier/kvtier/test/headtohead/kvpool"
)

// Sim is what the simulator is asked to predict for the trace replay: the
// daemon's policy, fast budget and epoch over the same slot accesses, from
// the placement the replay started with.
type Sim struct {
	Kvtier    string // the kvtier binary
	Policy    string // policy spec
	FastBytes int64  // the fast tier's capacity
	Epoch     int    // accesses per epoch: the replay's reads in one daemon epoch
	Slots     int
	BlockSize int64
	// Start are the slots on node 0 when the replay began: the simulated
	// fill touches them first, so they start in the fast tier.
	Start []int
}

// simHCL are the settings of test/headtohead/configs' kvtier configs (the
// planner's other settings are the defaults of both daemon and simulator).
var simHCL = Sim{Policy: "lru", Slots: 256, BlockSize: 2 << 20}

// Predict returns the share of the first reads replayed accesses of the
// trace that `kvtier sim --mode tiering` serves from the fast tier. Every
// slot is read once first (the fill: s.Start first, so they start fast)
// and those reads are left out of the share: the simulator runs with and
// without the replay and the fast-tier hits are subtracted.
func (s Sim) Predict(traceData []byte, reads int, dir string) (float64, string, error) {
	acc, err := kvpool.Replay(trace.NewMooncake(bytes.NewReader(traceData), "trace", trace.MooncakeOptions{NoDecode: true, NoRefCount: true}), s.Slots, reads)
	if err != nil {
		return 0, "", err
	}
	if len(acc) == 0 {
		return 0, "", fmt.Errorf("predicting the replay: no accesses")
	}
	warm, full := filepath.Join(dir, "replay-warm.jsonl"), filepath.Join(dir, "replay.jsonl")
	if err := s.writeTrace(warm, nil); err != nil {
		return 0, "", err
	}
	if err := s.writeTrace(full, acc); err != nil {
		return 0, "", err
	}
	hw, _, err := s.fastHits(warm)
	if err != nil {
		return 0, "", err
	}
	hf, cmd, err := s.fastHits(full)
	if err != nil {
		return 0, "", err
	}
	return float64(hf-hw) / float64(len(acc)), cmd, nil
}

// writeTrace writes a kvtier JSONL trace: one read of every slot, then
// the accesses (a miss is a write: the prefill of the new hash id).
func (s Sim) writeTrace(file string, acc []kvpool.Access) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("writing the replay trace: %w", err)
	}
	w := trace.NewJSONLWriter(f)
	t := int64(0)
	rec := func(slot int, write bool) error {
		t++
		return w.Write(trace.Record{Op: trace.OpAccess, Time: t, Block: uint64(slot), Write: write, Meta: policy.Meta{Size: s.BlockSize}})
	}
	for _, slot := range s.fillOrder() {
		if err := rec(slot, false); err != nil {
			f.Close()
			return err
		}
	}
	for _, a := range acc {
		if err := rec(a.Slot, !a.Hit); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing the replay trace: %w", err)
	}
	return f.Close()
}

// fillOrder is every slot once: those of s.Start first, then the others.
func (s Sim) fillOrder() []int {
	seen := make([]bool, s.Slots)
	var out []int
	for _, slot := range s.Start {
		if slot >= 0 && slot < s.Slots && !seen[slot] {
			seen[slot] = true
			out = append(out, slot)
		}
	}
	for slot := range s.Slots {
		if !seen[slot] {
			out = append(out, slot)
		}
	}
	return out
}

// fastHits runs the simulator on a trace and returns the policy's
// fast-tier hits and the command line.
func (s Sim) fastHits(file string) (int64, string, error) {
	args := []string{"sim", "--trace", file, "--mode", "tiering", "--preset", "cxl", "--fast-bytes", fmt.Sprint(s.FastBytes),
		"--policy", s.Policy, "--epoch", fmt.Sprint(s.Epoch), "--json"}
	cmd := "kvtier " + strings.Join(args, " ")
	out, err := exec.Command(s.Kvtier, args...).Output()
	if err != nil {
		return 0, cmd, fmt.Errorf("%s: %w", cmd, err)
	}
	var rows []struct {
		Policy      string  `json:"policy"`
		HitsPerTier []int64 `json:"hits_per_tier"`
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		return 0, cmd, fmt.Errorf("%s: decoding its output: %w", cmd, err)
	}
	for _, r := range rows {
		if r.Policy == s.Policy && len(r.HitsPerTier) > 0 {
			return r.HitsPerTier[0], cmd, nil
		}
	}
	return 0, cmd, fmt.Errorf("%s: no row for policy %s", cmd, s.Policy)
}
