package guest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTopologyFilesLoad(t *testing.T) {
	files, err := filepath.Glob("../topologies/*.json")
	if err != nil || len(files) < 2 {
		t.Fatalf("topology files: %v (%d found)", err, len(files))
	}
	for _, f := range files {
		topo, err := LoadTopology(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if want := strings.TrimSuffix(filepath.Base(f), ".json"); topo.Name != want {
			t.Errorf("%s: name %q, want %q (the file name)", f, topo.Name, want)
		}
	}
}

func TestQEMUArgs(t *testing.T) {
	topo, err := LoadTopology("../topologies/cxl-hmat.json")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(topo.QEMUArgs(), " ")
	for _, want := range []string{
		"-machine pc,hmat=on -m 2048M -smp 2",
		"-object memory-backend-ram,id=m0,size=1024M -numa node,nodeid=0,memdev=m0,cpus=0-1,initiator=0",
		"-numa node,nodeid=1,memdev=m1,initiator=0",
		"-numa dist,src=0,dst=1,val=20",
		"-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-latency,latency=300",
		"-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=200G",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("QEMU args lack %q:\n%s", want, got)
		}
	}
	m := &Machine{Kernel: "/k/vmlinuz-6.12", Initrd: "/tmp/i.gz", Topology: topo, Cmdline: "x=1"}
	args := strings.Join(m.Args(), " ")
	for _, want := range []string{"-accel tcg -cpu max", "-serial stdio", "-no-reboot", "console=ttyS0", "x=1", "-kernel /k/vmlinuz-6.12"} {
		if !strings.Contains(args, want) {
			t.Errorf("machine args lack %q:\n%s", want, args)
		}
	}
}

func TestParseTopologyErrors(t *testing.T) {
	base := `{"name":"t","cpus":2,"nodes":[{"id":0,"cpus":"0-1","memory_mib":1024,"initiator":0},%s],"distances":[{"src":0,"dst":1,"val":20}]%s}`
	tests := []struct {
		name, node, extra, want string
	}{
		{"syntax", `{"id":1,"memory_mib":1024,}`, "", "1:"},
		{"unknown field", `{"id":1,"memory_mib":1024,"speed":3}`, "", `unknown field "speed"`},
		{"type", `{"id":"one","memory_mib":1024}`, "", "1:"},
		{"node order", `{"id":2,"memory_mib":1024}`, "", "nodes[1].id is 2"},
		{"tiny node", `{"id":1,"memory_mib":1}`, "", "nodes[1].memory_mib is 1"},
		{"hmat initiator", `{"id":1,"memory_mib":1024}`, `,"hmat":true`, "nodes[1].initiator is missing"},
		{"lb without hmat", `{"id":1,"memory_mib":1024}`, `,"hmat_lb":[{"initiator":0,"target":1,"latency_ns":3}]`, "hmat is false"},
		{"bad bandwidth", `{"id":1,"memory_mib":1024,"initiator":0}`,
			`,"hmat":true,"hmat_lb":[{"initiator":0,"target":1,"bandwidth":"fast"}]`, `bandwidth "fast"`},
		{"both figures", `{"id":1,"memory_mib":1024,"initiator":0}`,
			`,"hmat":true,"hmat_lb":[{"initiator":0,"target":1,"bandwidth":"5G","latency_ns":3}]`, "exactly one"},
		{"cpus out of range", `{"id":1,"cpus":"2-3","memory_mib":1024}`, "", "nodes[1].cpus"},
		{"expect unknown node", `{"id":1,"memory_mib":1024}`, `,"expect":{"slow_nodes":[4]}`, "node 4"},
		{"trailing", `{"id":1,"memory_mib":1024}`, `} {`, "trailing data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := strings.Replace(strings.Replace(base, "%s", tt.node, 1), "%s", tt.extra, 1)
			_, err := ParseTopology([]byte(doc))
			if !errors.Is(err, ErrTopology) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseTopology: %v, want ErrTopology mentioning %q", err, tt.want)
			}
		})
	}
}

func TestLoadTopologyNamesFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(f, []byte("{\n  \"name\": 3\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadTopology(f)
	if err == nil || !strings.HasPrefix(err.Error(), f+":2:") {
		t.Errorf("LoadTopology: %v, want an error starting %s:2:", err, f)
	}
}

func FuzzParseTopology(f *testing.F) {
	for _, name := range []string{"cxl", "cxl-hmat"} {
		b, err := os.ReadFile("../topologies/" + name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"name":"x","cpus":1,"nodes":[{"id":0,"memory_mib":64}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		topo, err := ParseTopology(b)
		if err != nil {
			if !errors.Is(err, ErrTopology) {
				t.Fatalf("error %v does not wrap ErrTopology", err)
			}
			return
		}
		args := topo.QEMUArgs()
		if len(args) < 6 {
			t.Fatalf("valid topology gives %d QEMU args", len(args))
		}
		for _, a := range args {
			if a == "" {
				t.Fatalf("empty QEMU argument in %q", args)
			}
		}
	})
}
