//go:build linux && (amd64 || arm64)

package bpf

import "github.com/cilium/ebpf"

func progGetNextID(id uint32) (uint32, error) {
	next, err := ebpf.ProgramGetNextID(ebpf.ProgramID(id))
	return uint32(next), err
}
