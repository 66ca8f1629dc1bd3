package main

// hintCalls and hintBytes count the calls of kvtierHintAccess (reported as
// hint_calls and hint_bytes), which also keeps the function's body alive.
var hintCalls, hintBytes uint64

// hintLast is the last hinted address.
var hintLast uintptr

// kvtierHintAccess is the uprobe hint function of bpf/doc.go: the engine
// calls it with the address and length of every KV block it reads. The
// sampler attaches to the symbol main.kvtierHintAccess and reads addr (RAX)
// and n (RBX) with Go's register ABI, so the binary must not be stripped.
//
//go:noinline
func kvtierHintAccess(addr, n uintptr) {
	hintCalls++
	hintBytes += uint64(n)
	hintLast = addr
}
