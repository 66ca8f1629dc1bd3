package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kvtier/kvtier/test/guest"
)

func main() {
	os.Exit(run())
}

func run() int {
	kernel := flag.String("kernel", "6.12", "guest kernel series (6.12 or 6.1)")
	topo := flag.String("topology", "cxl-hmat", "topology file under test/topologies (without .json)")
	logFile := flag.String("log", "", "also write the guest's raw console to this file")
	timeout := flag.Duration("timeout", 6*time.Minute, "limit of the guest boot")
	flag.Parse()
	start := time.Now()
	st := newStory(os.Stdout)
	ok, err := demo(st, *kernel, *topo, *logFile, *timeout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		return 1
	}
	st.say("\ndemo finished in %s\n", time.Since(start).Round(time.Second))
	if !ok {
		return 1
	}
	return 0
}

// demo prepares the host, builds the guest and boots it, feeding the
// console to the story. It reports whether the story ended well.
func demo(st *story, kernel, topoName, logFile string, timeout time.Duration) (bool, error) {
	root, err := findRoot()
	if err != nil {
		return false, err
	}
	testDir := filepath.Join(root, "test")
	st.chapter("Preparing the host")
	st.say("QEMU, busybox-static and Debian's kernels (test/deps.sh; the first run downloads them)\n")
	kernels, err := guest.PrepareHost(testDir)
	if err != nil {
		return false, err
	}
	k, err := kernels.Get(kernel)
	if err != nil {
		return false, err
	}
	topo, err := guest.LoadTopology(filepath.Join(testDir, "topologies", topoName+".json"))
	if err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp("", "kvtier-demo-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	st.say("building kvtier, the KV workload and the probe (static, CGO_ENABLED=0)\n")
	if err := guest.BuildPrograms(root, tmp); err != nil {
		return false, err
	}
	initrd := filepath.Join(tmp, "initrd.gz")
	if err := writeInitramfs(testDir, tmp, initrd); err != nil {
		return false, err
	}
	st.say("booting %s: %s\n", k.Package, topo.Description)
	var console io.Writer = st
	if logFile != "" {
		f, err := os.Create(logFile)
		if err != nil {
			return false, err
		}
		defer f.Close()
		console = io.MultiWriter(st, f)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &guest.Machine{Kernel: k.Vmlinuz, Initrd: initrd, Topology: topo, Timeout: timeout, Log: console}
	b, err := m.Run(ctx)
	st.flush()
	if err != nil {
		return false, err
	}
	if b.ResultsErr != nil {
		return false, fmt.Errorf("the guest did not finish its script: %w", b.ResultsErr)
	}
	return st.verdict(b.Results)
}

// writeInitramfs writes the guest's root file system: busybox, the
// programs, /init, the demo script and its config.
func writeInitramfs(testDir, bin, out string) error {
	initScript, err := os.ReadFile(filepath.Join(testDir, "scenarios", "init.sh"))
	if err != nil {
		return err
	}
	items := []guest.Item{
		{Path: "scenario.sh", Source: filepath.Join(testDir, "scenarios", "demo.sh"), Mode: 0o644},
		{Path: "lib.sh", Source: filepath.Join(testDir, "scenarios", "lib.sh"), Mode: 0o644},
		{Path: "scenario.env", Data: []byte("")},
		{Path: "etc/kvtier/demo.hcl", Source: filepath.Join(testDir, "configs", "demo.hcl"), Mode: 0o644},
	}
	for _, p := range guest.Programs {
		items = append(items, guest.Item{Path: "bin/" + p.Name, Source: filepath.Join(bin, p.Name)})
	}
	r := &guest.Initramfs{Busybox: guest.DefaultBusybox, Init: string(initScript), Items: items}
	return r.WriteFile(out)
}

// findRoot walks up from the working directory to the module root.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "test", "deps.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run the demo from the kvtier repository (no test/deps.sh above the working directory)")
		}
		dir = parent
	}
}
