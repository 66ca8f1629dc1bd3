package sim

import "math"

// Result holds the measures of one run.
type Result struct {
	Policy   string `json:"policy"`
	Workload string `json:"workload"`
	Mode     string `json:"mode"`
	Preset   string `json:"preset,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Quant    string `json:"quant"`
	Seed     int64  `json:"seed"`

	Accesses int64 `json:"accesses"`
	// Hits counts accesses served by each tier (in cache mode, found
	// there before any move); Misses counts cold misses (no tier held
	// the block).
	Hits         []int64 `json:"hits_per_tier"`
	Misses       int64   `json:"misses"`
	FastHitRatio float64 `json:"fast_hit_ratio"`
	// Evictions counts demotions out of the fast tier.
	Evictions     int64 `json:"evictions"`
	BytesDemand   int64 `json:"bytes_moved_demand"`
	BytesPrefetch int64 `json:"bytes_moved_prefetch"`
	// PrefetchUseful counts prefetched blocks accessed before leaving the
	// fast tier; PrefetchWasted those that left (or the run ended) first.
	PrefetchUseful int64   `json:"prefetch_useful"`
	PrefetchWasted int64   `json:"prefetch_wasted"`
	MeanLatencyMs  float64 `json:"mean_latency_ms"`
	P99LatencyMs   float64 `json:"p99_latency_ms"`
	// Repromotions counts fast-tier evictions followed by an access to
	// the block within Horizon accesses; RepromotionRate divides it by
	// Evictions.
	Repromotions    int64   `json:"repromotions"`
	RepromotionRate float64 `json:"repromotion_rate"`
	// Fairness is Jain's index over the tenants' fast-tier hit ratios
	// (1 with one tenant).
	Fairness float64 `json:"jain_fairness"`
	Tenants  int     `json:"tenants"`
	// Utilisation is the mean share of the fast tier's capacity in use,
	// sampled at every access.
	Utilisation float64 `json:"fast_utilisation"`
	// MigrationMs is the modelled time of background migrations
	// (tiering mode: planner moves; not part of access latency).
	MigrationMs float64 `json:"migration_ms,omitempty"`
	// PeakBytes is the most bytes each tier held at once over the run
	// (cache mode and the lab model; a lower tier is measured once a
	// cascade into it has settled). Not set in blocks or tiering mode.
	PeakBytes []int64 `json:"peak_bytes_per_tier,omitempty"`
	Epochs    int64   `json:"epochs,omitempty"`

	// Set by Compare: the fast-tier hit ratio of LRU and Bélády on the
	// same trace and configuration, and the share of the LRU-to-Bélády
	// headroom this run captures (NaN when Bélády does no better than LRU,
	// encoded as null in JSON).
	LRUHitRatio    float64  `json:"lru_hit_ratio"`
	BeladyHitRatio float64  `json:"belady_hit_ratio"`
	Headroom       *float64 `json:"headroom_captured"`
}

// hist is a log-scale latency histogram: 1% wide buckets from 1 ns to
// about 10 minutes, so p99 is within 1% of the exact value.
type hist struct {
	counts []int64
	zero   int64
	n      int64
	sum    float64
	// A run has few distinct latencies (a handful of paths times the
	// block sizes), so the bucket of each is remembered in a small
	// direct-mapped cache keyed by the value's bits instead of taking a
	// logarithm per access.
	memoKey [histMemo]uint64
	memoBin [histMemo]int32
}

// histMemo is the number of remembered latency buckets, a power of two.
const histMemo = 256

const (
	histMin    = 1e-6 // ms
	histGrowth = 1.01
	histBins   = 2900
)

var logGrowth = math.Log(histGrowth)

func (h *hist) add(ms float64) {
	h.n++
	h.sum += ms
	if ms < histMin {
		h.zero++
		return
	}
	if h.counts == nil {
		h.counts = make([]int64, histBins)
	}
	bits := math.Float64bits(ms)
	slot := (bits ^ bits>>23 ^ bits>>41) & (histMemo - 1)
	if h.memoKey[slot] != bits {
		// bits is never 0 here (ms >= histMin), the keys' zero value.
		h.memoKey[slot] = bits
		h.memoBin[slot] = int32(min(int(math.Log(ms/histMin)/logGrowth), histBins-1))
	}
	h.counts[h.memoBin[slot]]++
}

func (h *hist) mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// quantile returns the upper edge of the bucket holding quantile q.
func (h *hist) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	seen := h.zero
	if seen >= rank {
		return 0
	}
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return histMin * math.Pow(histGrowth, float64(b+1))
		}
	}
	return histMin * math.Pow(histGrowth, histBins)
}

// jain returns Jain's fairness index of xs: (sum x)^2 / (n sum x^2).
func jain(xs []float64) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	if len(xs) == 0 || s2 == 0 {
		return 1
	}
	return s * s / (float64(len(xs)) * s2)
}

// tenantHits tracks per-tenant accesses and fast-tier hits.
type tenantHits struct {
	acc, hit []int64
}

func (t *tenantHits) add(tenant uint32, hit bool) {
	for int(tenant) >= len(t.acc) {
		t.acc = append(t.acc, 0)
		t.hit = append(t.hit, 0)
	}
	t.acc[tenant]++
	if hit {
		t.hit[tenant]++
	}
}

// fairness returns Jain's index over the hit ratios of tenants with
// accesses, and their number.
func (t *tenantHits) fairness() (float64, int) {
	var xs []float64
	for i, a := range t.acc {
		if a > 0 {
			xs = append(xs, float64(t.hit[i])/float64(a))
		}
	}
	return jain(xs), len(xs)
}
