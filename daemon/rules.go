package daemon

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
)

// scanLoop applies the config's rules to the running processes every
// scan_interval (and once at start).
func (d *Daemon) scanLoop(ctx context.Context) {
	for {
		cfg := d.Config()
		if len(cfg.Rules) > 0 {
			d.scanRules(cfg.Rules)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(cfg.ScanInterval):
		}
	}
}

// procInfo is what rules match a process by.
type procInfo struct {
	pid     int
	exe     string
	cmdline string
	cgroup  string
}

func (d *Daemon) procRoot() string {
	if d.opts.ProcRoot == "" {
		return numa.DefaultProcRoot
	}
	return d.opts.ProcRoot
}

// readProcInfo reads exe, cmdline and the cgroup v2 path of pid.
func readProcInfo(root string, pid int) (procInfo, bool) {
	dir := filepath.Join(root, strconv.Itoa(pid))
	p := procInfo{pid: pid}
	exe, err := os.Readlink(filepath.Join(dir, "exe"))
	if err != nil {
		return p, false // kernel thread, gone, or not ours to read
	}
	p.exe = exe
	if b, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
		p.cmdline = strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "0::"); ok {
				p.cgroup = rest
			}
		}
	}
	return p, true
}

// matches reports whether rule r selects process p.
func (r *Rule) matches(p procInfo) bool {
	if r.Exe != "" && r.Exe != p.exe {
		return false
	}
	if r.Cmdline != nil && !r.Cmdline.MatchString(p.cmdline) {
		return false
	}
	if r.Cgroup != "" {
		if strings.HasSuffix(r.Cgroup, "/") {
			if !strings.HasPrefix(p.cgroup+"/", r.Cgroup) {
				return false
			}
		} else if p.cgroup != r.Cgroup {
			return false
		}
	}
	return true
}

// mappings returns the mappings of ms that rule r selects.
func (r *Rule) mappings(ms numa.Maps) numa.Maps {
	if r.Mapping != "" {
		ms = ms.Named(r.Mapping)
	}
	if r.MinSize > 0 {
		ms = ms.AtLeast(uint64(r.MinSize))
	}
	return ms
}

// scanRules registers the mappings of matching processes that are not yet
// regions.
func (d *Daemon) scanRules(rules []Rule) {
	log := d.log.Named("rules")
	ents, err := os.ReadDir(d.procRoot())
	if err != nil {
		log.Error("cannot list processes", "error", err)
		return
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		info, ok := readProcInfo(d.procRoot(), pid)
		if !ok {
			continue
		}
		for i := range rules {
			if rules[i].matches(info) {
				d.applyRule(&rules[i], pid)
			}
		}
	}
}

// applyRule registers each selected mapping of pid not yet tracked.
func (d *Daemon) applyRule(r *Rule, pid int) {
	maps, err := numa.ReadMaps(d.procRoot(), pid)
	if err != nil {
		return
	}
	for _, m := range r.mappings(maps) {
		if d.tracked(pid, uint64(m.Start), m.Size()) {
			continue
		}
		s := regionSpec{pid: pid, addr: uint64(m.Start), length: m.Size(), blockSz: uint64(r.BlockSize),
			tenant: r.Tenant, name: m.Name(), source: "rule:" + r.Name, class: r.Class, priority: r.Priority,
			refcount: 1}
		if r.PinnedPrefix > 0 {
			n := (uint64(r.PinnedPrefix) + s.blockSz - 1) / s.blockSz * s.blockSz
			s.pinned = []api.Range{{Offset: 0, Length: min(n, s.length)}}
		}
		if _, err := d.addRegion(s); err != nil {
			d.log.Named("rules").Warn("cannot register matched mapping", "rule", r.Name, "pid", pid,
				"mapping", m.Name(), "error", err)
		}
	}
}

// tracked reports whether a region of pid overlaps the range.
func (d *Daemon) tracked(pid int, addr, length uint64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.regions {
		if r.overlaps(pid, addr, length) {
			return true
		}
	}
	return false
}
