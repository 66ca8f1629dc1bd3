package bpf

// Rebuild with `make generate` (Debian: apt-get install clang llvm libbpf-dev).
// One object per architecture (kvtier_x86_bpfel.*, kvtier_arm64_bpfel.*);
// bpf2go defines __TARGET_ARCH_x86 or __TARGET_ARCH_arm64 for each. The
// x86_64 include directory only supplies <asm/types.h> (asm-generic's
// int-ll64, the same on arm64) to <linux/types.h>.
//go:generate go tool bpf2go -tags linux -target amd64,arm64 -type count_key -type count_val -type watch_chunk -type watch_proc -type watch_region kvtier c/samplers.bpf.c -- -I/usr/include/x86_64-linux-gnu -Wall -Werror
