package bpf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kvtier/kvtier/numa"
)

// PMU is a hardware memory-access sampling event found under sysfs.
type PMU struct {
	Kind    string // "pebs", "pebs-l3miss" or "ibs"
	Device  string // event source device ("cpu", "cpu_core", "ibs_op")
	Type    uint32 // perf_event_attr.type
	Config  uint64 // perf_event_attr.config
	Config1 uint64 // perf_event_attr.config1 (PEBS load latency)
}

// memLoadRetiredL3Miss is MEM_LOAD_RETIRED.L3_MISS (event 0xd1, umask 0x20)
// on Intel cores since Skylake.
const memLoadRetiredL3Miss = 0x20d1

// DetectPMU finds the memory-access sampling PMU under sysRoot (normally
// /sys). want forces a kind ("pebs", "pebs-l3miss", "ibs"); empty picks
// PEBS loads, then AMD IBS op. ldlat is the PEBS load latency threshold.
// Without one it returns an error wrapping ErrNoPMU that names every path
// it looked at.
func DetectPMU(sysRoot, want string, ldlat uint32) (PMU, error) {
	devs := filepath.Join(sysRoot, "bus/event_source/devices")
	var looked []string
	try := func(kind string) (PMU, bool, error) {
		switch kind {
		case "pebs", "pebs-l3miss":
			for _, dev := range []string{"cpu", "cpu_core"} {
				dir := filepath.Join(devs, dev)
				ev := filepath.Join(dir, "events/mem-loads")
				looked = append(looked, ev)
				p, err := intelPMU(dir, ev, kind, ldlat)
				if errors.Is(err, os.ErrNotExist) {
					continue
				}
				return p, err == nil, err
			}
		case "ibs":
			f := filepath.Join(devs, "ibs_op/type")
			looked = append(looked, f)
			typ, err := readUint(f)
			if errors.Is(err, os.ErrNotExist) {
				return PMU{}, false, nil
			}
			return PMU{Kind: "ibs", Device: "ibs_op", Type: uint32(typ)}, err == nil, err
		default:
			return PMU{}, false, fmt.Errorf("PMU %q: want pebs, pebs-l3miss or ibs: %w", kind, ErrBadOption)
		}
		return PMU{}, false, nil
	}
	kinds := []string{"pebs", "ibs"}
	if want != "" {
		kinds = []string{want}
	}
	for _, k := range kinds {
		p, ok, err := try(k)
		if err != nil {
			return PMU{}, err
		}
		if ok {
			return p, nil
		}
	}
	return PMU{}, fmt.Errorf("looked for Intel PEBS and AMD IBS op at %s: %w", strings.Join(looked, ", "), ErrNoPMU)
}

// intelPMU builds the PEBS event of the core PMU in dir from its
// mem-loads event description and format files.
func intelPMU(dir, memLoads, kind string, ldlat uint32) (PMU, error) {
	desc, err := os.ReadFile(memLoads)
	if err != nil {
		return PMU{}, err
	}
	typ, err := readUint(filepath.Join(dir, "type"))
	if err != nil {
		return PMU{}, err
	}
	p := PMU{Kind: kind, Device: filepath.Base(dir), Type: uint32(typ)}
	if kind == "pebs-l3miss" {
		p.Config = memLoadRetiredL3Miss
		return p, nil
	}
	terms := map[string]uint64{}
	for _, t := range strings.Split(strings.TrimSpace(string(desc)), ",") {
		k, v, _ := strings.Cut(t, "=")
		n := uint64(1)
		if v != "" {
			if n, err = strconv.ParseUint(v, 0, 64); err != nil {
				return PMU{}, fmt.Errorf("%s: term %q: %w", memLoads, t, err)
			}
		}
		terms[k] = n
	}
	terms["ldlat"] = uint64(ldlat)
	for k, v := range terms {
		if err := setFormat(&p, filepath.Join(dir, "format", k), v); err != nil {
			return PMU{}, err
		}
	}
	return p, nil
}

// setFormat places v into p's config words as the format file says
// ("config:0-7", "config1:0-15", "config:21").
func setFormat(p *PMU, file string, v uint64) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	word, bits, ok := strings.Cut(strings.TrimSpace(string(raw)), ":")
	if !ok {
		return fmt.Errorf("%s: %q is not config:LO-HI", file, raw)
	}
	loS, hiS, isRange := strings.Cut(bits, "-")
	lo, err1 := strconv.ParseUint(loS, 10, 6)
	hi := lo
	var err2 error
	if isRange {
		hi, err2 = strconv.ParseUint(hiS, 10, 6)
	}
	if err1 != nil || err2 != nil || hi < lo {
		return fmt.Errorf("%s: bad bit range %q", file, bits)
	}
	width := hi - lo + 1
	if width < 64 && v >= 1<<width {
		return fmt.Errorf("%s: value %d does not fit in %d bits", file, v, width)
	}
	switch word {
	case "config":
		p.Config |= v << lo
	case "config1":
		p.Config1 |= v << lo
	default:
		return fmt.Errorf("%s: unsupported config word %q", file, word)
	}
	return nil
}

func readUint(file string) (uint64, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	return n, nil
}

// onlineCPUs reads sysRoot/devices/system/cpu/online ("0-3,6").
func onlineCPUs(sysRoot string) ([]int, error) {
	file := filepath.Join(sysRoot, "devices/system/cpu/online")
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	cpus, err := numa.ParseList(string(raw))
	if err == nil && len(cpus) == 0 {
		err = errors.New("no CPU listed")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return cpus, nil
}
