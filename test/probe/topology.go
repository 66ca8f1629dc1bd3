package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kvtier/kvtier/numa"
)

// TopologyReport is what the guest's kernel and numa.ReadTopology say.
type TopologyReport struct {
	Kernel   string         `json:"kernel"`
	Topology *numa.Topology `json:"topology"`
	// Sysctls are the kernel's own tiering knobs, raw.
	Sysctls map[string]string `json:"sysctls"`
	Uptime  string            `json:"uptime"`
}

func topology(sysRoot, procRoot string) (*TopologyReport, error) {
	t, err := numa.ReadTopology(sysRoot)
	if err != nil {
		return nil, err
	}
	r := &TopologyReport{Topology: t, Sysctls: map[string]string{}}
	r.Kernel = readTrim(filepath.Join(procRoot, "sys/kernel/osrelease"))
	r.Uptime = readTrim(filepath.Join(procRoot, "uptime"))
	for name, path := range map[string]string{
		"numa_balancing":   filepath.Join(procRoot, "sys/kernel/numa_balancing"),
		"demotion_enabled": filepath.Join(sysRoot, "kernel/mm/numa/demotion_enabled"),
		"thp_enabled":      filepath.Join(sysRoot, "kernel/mm/transparent_hugepage/enabled"),
		"damon_kdamonds":   filepath.Join(sysRoot, "kernel/mm/damon/admin/kdamonds/nr_kdamonds"),
	} {
		r.Sysctls[name] = readTrim(path)
	}
	return r, nil
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "absent"
	}
	return strings.TrimSpace(string(b))
}
