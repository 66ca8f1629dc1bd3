package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"unsafe"

	"github.com/kvtier/kvtier/numa"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// arena is one tenant's KV buffer: blocks of blockSize bytes, each filled
// with a pattern of (index, generation) and checksummed.
type arena struct {
	tenant    string
	buf       []byte // blockSize-aligned view of mem
	mem       []byte // keeps the allocation alive
	blockSize int
	gen       uint64
	sums      []uint32
	regionID  uint64 // daemon region, 0 when not registered
}

// newArena allocates size bytes aligned to blockSize. The Go heap gets
// large spans straight from the kernel, untouched, so MADV_NOHUGEPAGE
// applied before the fill decides the page size.
func newArena(tenant string, size, blockSize int, noHuge bool) (*arena, error) {
	if blockSize < 4096 || blockSize%4096 != 0 || size < blockSize || size%blockSize != 0 {
		return nil, fmt.Errorf("arena of %d bytes in blocks of %d: want a multiple of a 4 KiB-multiple block size", size, blockSize)
	}
	mem := make([]byte, size+blockSize)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&mem[0])) % uintptr(blockSize)); r != 0 {
		off = blockSize - r
	}
	a := &arena{tenant: tenant, mem: mem, buf: mem[off : off+size], blockSize: blockSize,
		sums: make([]uint32, size/blockSize)}
	if noHuge {
		if err := numa.Madvise(a.addr(), uint64(size), numa.AdviseNoHugePage); err != nil {
			return nil, fmt.Errorf("arena %s: %w", tenant, err)
		}
	}
	return a, nil
}

func (a *arena) addr() uintptr      { return uintptr(unsafe.Pointer(&a.buf[0])) }
func (a *arena) blocks() int        { return len(a.sums) }
func (a *arena) length() int        { return len(a.buf) }
func (a *arena) block(i int) []byte { return a.buf[i*a.blockSize : (i+1)*a.blockSize] }

// fill writes generation gen into every block and records the checksums.
func (a *arena) fill(gen uint64) {
	a.gen = gen
	page := make([]byte, 4096)
	for i := range a.sums {
		fillPage(page, uint64(i), gen)
		b := a.block(i)
		for p := 0; p < len(b); p += len(page) {
			copy(b[p:], page)
			binary.LittleEndian.PutUint64(b[p+16:], uint64(p/len(page)))
		}
		a.sums[i] = crc32.Checksum(b, castagnoli)
	}
}

// fillPage is the template page of block i in generation gen: words 0 and 1
// hold the index and generation, word 2 the page number (set by fill), the
// rest a splitmix64 stream seeded by both.
func fillPage(page []byte, i, gen uint64) {
	binary.LittleEndian.PutUint64(page[0:], i)
	binary.LittleEndian.PutUint64(page[8:], gen)
	s := i<<32 ^ gen*0x9e3779b97f4a7c15
	for off := 24; off+8 <= len(page); off += 8 {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		binary.LittleEndian.PutUint64(page[off:], z^z>>31)
	}
}

// read reads block i for real, reports it through the hint function and
// tells whether its checksum still matches.
func (a *arena) read(i int) bool {
	b := a.block(i)
	kvtierHintAccess(uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return crc32.Checksum(b, castagnoli) == a.sums[i]
}

// verify checks every block and returns the indices that do not match.
func (a *arena) verify() []int {
	var bad []int
	for i := range a.sums {
		b := a.block(i)
		if crc32.Checksum(b, castagnoli) != a.sums[i] {
			bad = append(bad, i)
		}
	}
	return bad
}

// pageNodes returns the node of the first page of every block (-1 when
// the page is not present), from move_pages(2) queries on the caller.
func (a *arena) pageNodes() ([]int, error) {
	pages := make([]uintptr, a.blocks())
	for i := range pages {
		pages[i] = a.addr() + uintptr(i*a.blockSize)
	}
	status := make([]numa.PageStatus, len(pages))
	if err := numa.QueryPages(0, pages, status, 0); err != nil {
		return nil, err
	}
	nodes := make([]int, len(status))
	for i, s := range status {
		nodes[i], _ = s.OnNode()
	}
	return nodes, nil
}
