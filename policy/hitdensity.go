package policy

import "math"

// Age buckets of the hit-density model are logarithmic: ages below
// 2^(ageSubBits+1) have one bucket each, then every octave [2^e, 2^(e+1))
// is split into 2^ageSubBits buckets of equal width. Ages are counted in
// accesses, so no bucket width depends on a trace's time unit or on the
// capacity, and 2^47 accesses fit.
const (
	ageSubBits = 3
	ageDirect  = 1 << (ageSubBits + 1)
	ageOctaves = 44
	ageBuckets = ageDirect + ageOctaves<<ageSubBits
)

// ageBucket returns the bucket of age a >= 0 (a negative age is 0),
// without a branch or a variable shift: from ageDirect on, the exponent
// and top ageSubBits bits of a's mantissa as a float64, exact below 2^53
// (beyond, where rounding could move a to the next octave, every age is
// in the last bucket), count the buckets; below, a is its own bucket.
func ageBucket(a int64) int {
	b := int(math.Float64bits(float64(a))>>(52-ageSubBits)) + ageDirect - (1024+ageSubBits)<<ageSubBits
	if a < ageDirect {
		b = int(max(a, 0))
	}
	return min(b, ageBuckets-1)
}

// ageWidth returns the number of ages bucket i covers.
func ageWidth(i int) float64 {
	if i < ageDirect {
		return 1
	}
	e := (i-ageDirect)>>ageSubBits + ageSubBits + 1
	return float64(uint64(1) << (e - ageSubBits))
}

// densityModel learns, per class of block, the hit density at each age as
// LHD does (Beckmann, Chen and Cidon, "LHD: Improving Cache Hit Rate by
// Maximizing Hit Density", NSDI'18): a block's lifetime in the cache ends
// with a hit or an eviction; hits[c][a] and ends[c][a] count the lifetimes
// of class c that ended at age a. A block of age a expects
// H(a) = sum over ages >= a of hits, and a remaining lifetime
// L(a) = sum over ages >= a of (events at or beyond that age) x width,
// so its hit density is H(a) / L(a): expected hits per unit of cache space
// and time it will still use. Counts decay geometrically at every refresh,
// so the model follows a changing workload.
//
// A class with few events borrows the shape of all classes together: its
// counts get prior pseudo-events spread like the pooled histogram, so a
// class that never ended a lifetime is not ranked as worthless.
type densityModel struct {
	classes int
	hits    [][ageBuckets]float64
	ends    [][ageBuckets]float64
	dens    []float64 // classes x ageBuckets, class-major
	decay   float64
	prior   float64
}

func newDensityModel(classes int, decay, prior float64) densityModel {
	return densityModel{classes: classes, decay: decay, prior: prior,
		hits: make([][ageBuckets]float64, classes+1), ends: make([][ageBuckets]float64, classes+1),
		dens: make([]float64, classes*ageBuckets)}
}

// hit records w lifetimes of class c that ended with a hit at age a.
func (m *densityModel) hit(c int, a int64, w float64) { m.hits[c][ageBucket(a)] += w }

// end records w lifetimes of class c that ended without a hit at age a.
func (m *densityModel) end(c int, a int64, w float64) { m.ends[c][ageBucket(a)] += w }

// density returns the hit density of a block of class c at age a, as of
// the last refresh.
func (m *densityModel) density(c int, a int64) float64 { return m.dens[c*ageBuckets+ageBucket(a)] }

// refresh recomputes the densities from the counts, then decays the counts.
func (m *densityModel) refresh() {
	pool := m.classes // the pooled histogram lives in the last row
	m.hits[pool], m.ends[pool] = [ageBuckets]float64{}, [ageBuckets]float64{}
	var total float64
	for c := range m.classes {
		for i := range ageBuckets {
			m.hits[pool][i] += m.hits[c][i]
			m.ends[pool][i] += m.ends[c][i]
			total += m.hits[c][i] + m.ends[c][i]
		}
	}
	w := 0.0
	if total > 0 {
		w = m.prior / total
	}
	for c := range m.classes {
		m.densities(c, w)
	}
	for c := range m.classes {
		for i := range ageBuckets {
			m.hits[c][i] *= m.decay
			m.ends[c][i] *= m.decay
		}
	}
}

// densities fills dens[c] from class c's counts plus w times the pooled
// counts.
func (m *densityModel) densities(c int, w float64) {
	pool := m.classes
	var hitsUp, eventsUp, lifeUp float64
	dens := m.dens[c*ageBuckets : (c+1)*ageBuckets]
	for i := ageBuckets - 1; i >= 0; i-- {
		h := m.hits[c][i] + w*m.hits[pool][i]
		hitsUp += h
		eventsUp += h + m.ends[c][i] + w*m.ends[pool][i]
		lifeUp += eventsUp * ageWidth(i)
		if lifeUp > 0 {
			dens[i] = hitsUp / lifeUp
		} else {
			dens[i] = 0
		}
	}
}

// ageStart returns the least age in bucket i.
func ageStart(i int) int64 {
	if i < ageDirect {
		return int64(i)
	}
	e := (i-ageDirect)>>ageSubBits + ageSubBits + 1
	sub := int64((i - ageDirect) & (1<<ageSubBits - 1))
	return 1<<e + sub<<(e-ageSubBits)
}

// adopt adds src's counts to m, src's ages multiplied by scale (src saw
// one access in scale), and refreshes the densities.
func (m *densityModel) adopt(src *densityModel, scale int64) {
	for c := range min(m.classes, src.classes) {
		for i := range ageBuckets {
			j := ageBuckets - 1
			if a := ageStart(i); a <= (1<<62)/scale {
				j = ageBucket(a * scale)
			}
			m.hits[c][j] += src.hits[c][i]
			m.ends[c][j] += src.ends[c][i]
		}
	}
	m.refresh()
}
