// Command hintprog is the uprobe sampler's test workload. It maps a buffer,
// prints "ready ADDR OUTSIDE", waits for a line on stdin, then reports a
// hint for each "block:len" in -hints (offsets in units of -block bytes)
// and one for an address in a second mapping outside the buffer, prints
// "done" and exits when stdin closes.
//
// Hints go through kvtierHintAccess (Go register ABI: addr in RAX, n in
// RBX) or, with -abi c, through kvtierHintAccessC, an assembly function
// entered with the C convention (addr in RDI, n in RSI).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

var sink uintptr

// kvtierHintAccess is the hint function a Go engine exports.
//
//go:noinline
func kvtierHintAccess(addr, n uintptr) { sink += addr ^ n }

// kvtierHintAccessC is the hint entered with the C calling convention
// (assembly, called only by hintC).
//
//lint:ignore U1000 called from hint_amd64.s and hint_arm64.s
func kvtierHintAccessC()

// hintC calls kvtierHintAccessC with addr and n in the C convention's
// first two argument registers (amd64: RDI, RSI; arm64: X0, X1).
func hintC(addr, n uintptr)

func main() {
	block := flag.Int("block", 4096, "block size in bytes")
	size := flag.Int("size", 64*4096, "buffer size in bytes")
	hints := flag.String("hints", "", "comma-separated block:len hints (len in bytes)")
	abi := flag.String("abi", "go", "calling convention of the hint: go or c")
	flag.Parse()
	buf, err := syscall.Mmap(-1, 0, *size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hintprog:", err)
		os.Exit(1)
	}
	other, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hintprog:", err)
		os.Exit(1)
	}
	base := uintptr(unsafe.Pointer(&buf[0]))
	outside := uintptr(unsafe.Pointer(&other[0]))
	hint := kvtierHintAccess
	if *abi == "c" {
		hint = hintC
	}
	fmt.Printf("ready %d %d\n", base, outside)
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		os.Exit(1)
	}
	for _, h := range strings.Split(*hints, ",") {
		b, l, _ := strings.Cut(h, ":")
		bi, err1 := strconv.Atoi(b)
		li, err2 := strconv.Atoi(l)
		if err1 != nil || err2 != nil {
			fmt.Fprintf(os.Stderr, "hintprog: bad hint %q\n", h)
			os.Exit(2)
		}
		hint(base+uintptr(bi**block), uintptr(li))
	}
	hint(outside, 8)
	fmt.Println("done", sink&1)
	_, _ = in.ReadString('\n')
}
