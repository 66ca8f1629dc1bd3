package numa

import (
	"context"
	"testing"
	"time"
)

// BenchmarkQueryRange measures placement queries in pages per second.
func BenchmarkQueryRange(b *testing.B) {
	const pages = 16384 // 64 MiB of 4 KiB pages
	buf := testBuffer(b, pages)
	start, end := bufAddr(buf), bufAddr(buf)+uintptr(len(buf))
	b.ResetTimer()
	for b.Loop() {
		pl, err := QueryRange(0, start, end, 0)
		if err != nil || pl.Pages != pages {
			b.Fatalf("%+v, %v", pl, err)
		}
	}
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkMoveVsMemcpy moves a 64 MiB buffer with move_pages(2) and
// copies the same bytes with memcpy in the same run, and reports the
// ratio of their throughputs. With two memory nodes each iteration moves
// the buffer to the other node, so every page is really copied. With one
// node the move is node 0 -> node 0, which the kernel short-circuits (it
// sees each page already there and copies nothing): the ratio then shows
// the cost of the page walk, not of migration.
func BenchmarkMoveVsMemcpy(b *testing.B) {
	topo := hostTopology(b)
	nodes := memoryNodes(topo)
	const pages = 16384
	buf := testBuffer(b, pages)
	dst := make([]byte, len(buf))
	addrs, err := PagesOf(bufAddr(buf), bufAddr(buf)+uintptr(len(buf)))
	if err != nil {
		b.Fatal(err)
	}
	status := make([]PageStatus, pages)
	if len(nodes) < 2 {
		b.Logf("one memory node (%v): moves are node %d -> node %d, short-circuited by the kernel", nodes, nodes[0], nodes[0])
	}
	var moveTime, copyTime time.Duration
	i := 0
	for b.Loop() {
		node := nodes[i%len(nodes)]
		i++
		t0 := time.Now()
		st, err := MovePages(context.Background(), 0, addrs, node, status, MoveOptions{})
		moveTime += time.Since(t0)
		if err != nil || st.OnTarget != pages {
			b.Fatalf("move to node %d: %+v, %v", node, st, err)
		}
		t0 = time.Now()
		copy(dst, buf)
		copyTime += time.Since(t0)
	}
	bytes := float64(len(buf)) * float64(i)
	b.ReportMetric(bytes/moveTime.Seconds()/1e6, "move_MB/s")
	b.ReportMetric(bytes/copyTime.Seconds()/1e6, "memcpy_MB/s")
	b.ReportMetric(copyTime.Seconds()/moveTime.Seconds(), "move/memcpy")
	b.ReportMetric(float64(len(nodes)), "memory_nodes")
}
