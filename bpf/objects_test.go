package bpf

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// ctxLoad is a load of a program's context (R1 at entry, and the registers
// it was copied to).
type ctxLoad struct {
	Offset int16
	CORE   bool // carries a CO-RE relocation (rewritten against the kernel's BTF)
}

// ctxLoads returns the context loads of insns in program order: it follows
// R1 through register moves and drops a register once it is overwritten or
// a helper call clobbers R1-R5.
func ctxLoads(insns asm.Instructions) []ctxLoad {
	ctx := map[asm.Register]bool{asm.R1: true}
	var loads []ctxLoad
	for _, ins := range insns {
		op := ins.OpCode
		switch {
		case op.JumpOp() == asm.Call:
			for r := asm.R0; r <= asm.R5; r++ {
				delete(ctx, r)
			}
		case op.Class().IsLoad() && op.Mode() == asm.MemMode:
			if ctx[ins.Src] {
				loads = append(loads, ctxLoad{ins.Offset, btf.CORERelocationMetadata(&ins) != nil})
			}
			delete(ctx, ins.Dst)
		case op.Class().IsALU():
			copied := op.ALUOp() == asm.Mov && op.Source() == asm.RegSource && ctx[ins.Src]
			delete(ctx, ins.Dst)
			if copied {
				ctx[ins.Dst] = true
			}
		}
	}
	return loads
}

// TestObjectsPerArch parses the committed bpf2go objects of both
// architectures (a BTF-less spec parse: no kernel, so it runs on any host
// and GOARCH) and checks the context layout each was built for: the
// perf_event program reads bpf_perf_event_data.addr after the
// architecture's user registers (x86_64 pt_regs: 21, arm64 user_pt_regs:
// 34), and the hint uprobes read their two arguments from RDI/RSI (C) and
// RAX/RBX (Go) through CO-RE on amd64 and from regs[0], regs[1] on arm64.
func TestObjectsPerArch(t *testing.T) {
	for _, tc := range []struct {
		obj   string
		prog  string
		loads []ctxLoad
	}{
		{"kvtier_x86_bpfel.o", "on_perf", []ctxLoad{{22 * 8, false}}},
		{"kvtier_arm64_bpfel.o", "on_perf", []ctxLoad{{35 * 8, false}}},
		// Local struct pt_regs {bx, ax, si, di}: di at 24, si at 16.
		{"kvtier_x86_bpfel.o", "on_hint_c", []ctxLoad{{16, true}, {24, true}}},
		{"kvtier_x86_bpfel.o", "on_hint_go", []ctxLoad{{0, true}, {8, true}}},
		{"kvtier_arm64_bpfel.o", "on_hint_c", []ctxLoad{{0, false}, {8, false}}},
		{"kvtier_arm64_bpfel.o", "on_hint_go", []ctxLoad{{0, false}, {8, false}}},
	} {
		t.Run(tc.obj+"/"+tc.prog, func(t *testing.T) {
			spec, err := ebpf.LoadCollectionSpec(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if spec.ByteOrder != binary.LittleEndian {
				t.Errorf("byte order %v, want little endian", spec.ByteOrder)
			}
			p := spec.Programs[tc.prog]
			if p == nil {
				t.Fatalf("no program %s", tc.prog)
			}
			got := ctxLoads(p.Instructions)
			slices.SortFunc(got, func(a, b ctxLoad) int { return int(a.Offset) - int(b.Offset) })
			if !slices.Equal(got, tc.loads) {
				t.Errorf("context loads %+v, want %+v", got, tc.loads)
			}
		})
	}
}

// TestObjectsSameShape checks that both architectures' objects hold the
// same programs (with the same section names) and maps, so a loader
// written against one finds everything in the other.
func TestObjectsSameShape(t *testing.T) {
	x86, err := ebpf.LoadCollectionSpec("kvtier_x86_bpfel.o")
	if err != nil {
		t.Fatal(err)
	}
	arm, err := ebpf.LoadCollectionSpec("kvtier_arm64_bpfel.o")
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range x86.Programs {
		q := arm.Programs[name]
		if q == nil || q.SectionName != p.SectionName || q.Type != p.Type {
			t.Errorf("program %s (%s, %v): arm64 has %+v", name, p.SectionName, p.Type, q)
		}
	}
	for name, m := range x86.Maps {
		n := arm.Maps[name]
		if n == nil || n.Type != m.Type || n.KeySize != m.KeySize || n.ValueSize != m.ValueSize || n.MaxEntries != m.MaxEntries {
			t.Errorf("map %s: arm64 has %+v, amd64 %+v", name, n, m)
		}
	}
	if len(arm.Programs) != len(x86.Programs) || len(arm.Maps) != len(x86.Maps) {
		t.Errorf("arm64: %d programs, %d maps; amd64: %d, %d", len(arm.Programs), len(arm.Maps), len(x86.Programs), len(x86.Maps))
	}
}
