package bpf

// Rebuild with `make generate` (Debian: apt-get install clang llvm libbpf-dev).
//go:generate go tool bpf2go -tags linux -target amd64 -type count_key -type count_val -type watch_proc -type watch_region kvtier c/samplers.bpf.c -- -I/usr/include/x86_64-linux-gnu -Wall -Werror
