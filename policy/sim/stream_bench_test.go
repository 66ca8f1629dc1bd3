package sim

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
)

// zipfCSV returns a CSV trace of n unit-size requests drawn from
// Zipf(1.01) over objects objects, in internal/simbench's layout.
func zipfCSV(n, objects int) []byte {
	r := rand.New(rand.NewPCG(42, 1))
	z := rand.NewZipf(r, 1.01, 1, uint64(objects-1))
	var buf bytes.Buffer
	buf.WriteString("time,block,op,size\n")
	var line []byte
	for i := range n {
		line = strconv.AppendInt(line[:0], int64(i+1), 10)
		line = append(line, ',')
		line = strconv.AppendUint(line, (z.Uint64()*0x9E3779B97F4A7C15)&(1<<53-1), 10)
		line = append(line, ",access,1\n"...)
		buf.Write(line)
	}
	return buf.Bytes()
}

// BenchmarkStreamZipf streams a 2M-request Zipf CSV (over 400,000
// objects, a 40,000-block tier) from memory through CompareStream, as
// kvtier sim --capacity-blocks does with --reference none: parse, number
// and replay, one policy at a time and all three at once.
func BenchmarkStreamZipf(b *testing.B) {
	const n = 2_000_000
	data := zipfCSV(n, 400_000)
	cfg := Config{Mode: ModeBlocks, CapacityBlocks: 40_000}
	open := func() (trace.Reader, error) { return trace.NewCSV(bytes.NewReader(data), "zipf.csv"), nil }
	for _, pols := range [][]string{{"lru"}, {"arc"}, {"s3fifo"}, {"lru", "arc", "s3fifo"}} {
		b.Run(pols[len(pols)-1]+strconv.Itoa(len(pols)), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := CompareStream(cfg, pols, References{}, "zipf.csv", open); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
		})
	}
}
