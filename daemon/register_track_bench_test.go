package daemon

import (
	"fmt"
	"os"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy"
)

// trackBenchBlocks is the size of the region BenchmarkRegisterTrack
// registers: 10M blocks of 4 KiB (40 GiB).
const trackBenchBlocks = 10 << 20

// BenchmarkRegisterTrack measures registration's daemon-side cost, the
// kernel left out: building a region of 10M blocks of 4 KiB from the
// tiers a registration read (every block slow, or every block fast) and
// tracking it (trackLocked: every step of the API's registration in one
// hold of the lock), with no pinned range or with 16 pinned ranges of
// 1,024 blocks. ns/op and the allocations are the registration's; the
// region is dropped outside the timer.
func BenchmarkRegisterTrack(b *testing.B) {
	for _, pins := range []int{0, 16} {
		for _, fast := range []bool{false, true} {
			tier := map[bool]string{false: "slow", true: "fast"}[fast]
			b.Run(fmt.Sprintf("blocks=10M/%s/pins=%d", tier, pins), func(b *testing.B) {
				d, proc := benchFixture(b, "track.hcl", fmt.Appendf(nil, scaleConfig,
					int64(trackBenchBlocks)*scaleBlockSize/4, int64(trackBenchBlocks)*scaleBlockSize/100))
				tiers := make([]bool, trackBenchBlocks)
				for i := range tiers {
					tiers[i] = fast
				}
				s := regionSpec{pid: os.Getpid(), addr: 1 << 40, length: trackBenchBlocks * scaleBlockSize,
					blockSz: scaleBlockSize, tenant: "t", source: "bench", priority: policy.PriorityNormal,
					refcount: 1, fast: tiers}
				for k := range pins {
					off := uint64(k) * (trackBenchBlocks / uint64(pins)) * scaleBlockSize
					s.pinned = append(s.pinned, api.Range{Offset: off, Length: 1024 * scaleBlockSize})
				}
				b.ReportAllocs()
				d.mu.Lock()
				defer d.mu.Unlock()
				for b.Loop() {
					r, err := d.trackLocked(s, proc)
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					d.untrack(r, r.tracked)
					delete(d.regions, r.id)
					d.releaseTenant(r.tenant)
					b.StartTimer()
				}
			})
		}
	}
}
