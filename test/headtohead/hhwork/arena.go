package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"unsafe"

	"github.com/kvtier/kvtier/numa"
)

const pageSize = 4096

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// arena is the KV buffer: blocks of blockSize bytes, each filled with a
// deterministic pattern and checksummed with CRC-32C.
type arena struct {
	buf       []byte // blockSize-aligned view of mem
	mem       []byte // keeps the allocation alive
	blockSize int
	sums      []uint32
	page      []byte // template page of fillBlock
}

// newArena allocates size bytes aligned to blockSize. The Go heap takes
// large spans straight from the kernel, untouched, so MADV_NOHUGEPAGE
// applied before the fill decides the page size.
func newArena(size, blockSize int, noHuge bool) (*arena, error) {
	if blockSize < pageSize || blockSize%pageSize != 0 || size < blockSize || size%blockSize != 0 {
		return nil, fmt.Errorf("arena of %d bytes in blocks of %d: want a multiple of a 4 KiB-multiple block size", size, blockSize)
	}
	mem := make([]byte, size+blockSize)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&mem[0])) % uintptr(blockSize)); r != 0 {
		off = blockSize - r
	}
	a := &arena{mem: mem, buf: mem[off : off+size], blockSize: blockSize,
		sums: make([]uint32, size/blockSize), page: make([]byte, pageSize)}
	if noHuge {
		if err := numa.Madvise(a.addr(), uint64(size), numa.AdviseNoHugePage); err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
	}
	return a, nil
}

func (a *arena) addr() uintptr      { return uintptr(unsafe.Pointer(&a.buf[0])) }
func (a *arena) blocks() int        { return len(a.sums) }
func (a *arena) block(i int) []byte { return a.buf[i*a.blockSize : (i+1)*a.blockSize] }

// fill writes every block with the content of key i (its index) and
// records the checksums: first touch places the pages.
func (a *arena) fill() {
	for i := range a.sums {
		a.write(i, uint64(i))
	}
}

// write fills block i with the content of key (a block index or a trace
// hash id) and records its checksum.
func (a *arena) write(i int, key uint64) {
	fillPage(a.page, key)
	b := a.block(i)
	for p := 0; p < len(b); p += pageSize {
		copy(b[p:], a.page)
		binary.LittleEndian.PutUint64(b[p+8:], uint64(p/pageSize))
	}
	a.sums[i] = crc32.Checksum(b, castagnoli)
}

// fillPage is the template page of key: word 0 holds the key, word 1 the
// page number (set by write), the rest a splitmix64 stream seeded by key.
func fillPage(page []byte, key uint64) {
	binary.LittleEndian.PutUint64(page[0:], key)
	s := key*0x9e3779b97f4a7c15 ^ 0x5bd1e995
	for off := 16; off+8 <= len(page); off += 8 {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		binary.LittleEndian.PutUint64(page[off:], z^z>>31)
	}
}

// read reads block i for real and tells whether its checksum matches.
func (a *arena) read(i int) bool {
	return crc32.Checksum(a.block(i), castagnoli) == a.sums[i]
}

// verify checks every block and returns the indices that do not match.
func (a *arena) verify() []int {
	bad := []int{}
	for i := range a.sums {
		if !a.read(i) {
			bad = append(bad, i)
		}
	}
	return bad
}

// pageList returns the address of every page of the blocks.
func (a *arena) pageList(blocks []int) []uintptr {
	per := a.blockSize / pageSize
	pages := make([]uintptr, 0, len(blocks)*per)
	for _, b := range blocks {
		base := a.addr() + uintptr(b*a.blockSize)
		for p := range per {
			pages = append(pages, base+uintptr(p*pageSize))
		}
	}
	return pages
}

// placement queries where pages are (move_pages in query mode).
type placement struct {
	pages  []uintptr
	status []numa.PageStatus
}

func newPlacement(pages []uintptr) *placement {
	return &placement{pages: pages, status: make([]numa.PageStatus, len(pages))}
}

// node0Share returns the share of the pages on node 0 now.
func (p *placement) node0Share() (float64, error) {
	if len(p.pages) == 0 {
		return 0, nil
	}
	if err := numa.QueryPages(0, p.pages, p.status, 0); err != nil {
		return 0, err
	}
	n := 0
	for _, s := range p.status {
		if node, ok := s.OnNode(); ok && node == 0 {
			n++
		}
	}
	return float64(n) / float64(len(p.pages)), nil
}
