package trace

import (
	"fmt"
	"sort"
)

func init() {
	registerWorkload("rag_burst",
		"retrieval bursts over a popular-document corpus between generation phases on a hot prompt",
		newRAG, "pages", 96, "steps", 512, "burst", 8, "hot", 8)
	registerWorkload("prefetch_friendly",
		"sequential runs from random starts: the next block is the likely next access",
		newPrefetch, "pages", 128, "steps", 512, "run", 16)
	registerWorkload("mixed_locality",
		"a drifting Zipf hot set, a sequential scan and uniform noise mixed 50/30/20",
		newMixed, "pages", 128, "steps", 640, "hot", 12)
}

// zipf draws ranks 0..n-1 with P(k) proportional to 1/(k+1).
type zipf struct{ cdf []float64 }

func newZipf(n int) zipf {
	z := zipf{cdf: make([]float64, n)}
	sum := 0.0
	for k := range n {
		sum += 1 / float64(k+1)
		z.cdf[k] = sum
	}
	for k := range z.cdf {
		z.cdf[k] /= sum
	}
	return z
}

func (z zipf) draw(r *rng) int {
	return min(sort.SearchFloat64s(z.cdf, r.float()), len(z.cdf)-1)
}

// newRAG builds rag_burst: pages [0, Hot) are the query and system prompt,
// the rest a corpus of documents of Burst pages each (the last one may be
// shorter). The trace alternates a retrieval burst, reading one document's
// pages in order, with a generation phase of Burst steps, each reading a
// hot page (probability 1/2, uniform) or a page of the document just
// retrieved (uniform). Documents are drawn with Zipf popularity
// (P proportional to 1/rank) over a seed-dependent ranking, so a few
// documents come back often and most rarely: the fast tier helps when it
// holds the hot pages and the popular documents, and a quantised footprint
// lets more of them fit. Meta: Seq = retrieval number, Pos = page index
// within its document (or the hot set).
func newRAG(p WorkloadParams) (Reader, error) {
	if p.Hot >= p.Pages {
		return nil, fmt.Errorf("%w: hot=%d: want < pages (%d)", ErrBadParam, p.Hot, p.Pages)
	}
	r := newRNG(p.Seed, 4)
	docs := (p.Pages - p.Hot + p.Burst - 1) / p.Burst
	rank := make([]int, docs) // rank -> document
	for i := range rank {
		j := r.intn(i + 1)
		rank[i], rank[j] = rank[j], i
	}
	z := newZipf(docs)
	doc, retrieval, phase := 0, -1, 0 // phase: step within burst + generation
	docPages := func(d int) (int, int) {
		start := p.Hot + d*p.Burst
		return start, min(start+p.Burst, p.Pages) - start
	}
	return &stepFunc{gen: gen{p: p}, step: func(g *gen) Record {
		if phase == 0 {
			doc = rank[z.draw(r)]
			retrieval++
		}
		start, n := docPages(doc)
		var page, pos int
		switch {
		case phase < n:
			page, pos = start+phase, phase
		case r.float() < 0.5:
			pos = r.intn(p.Hot)
			page = pos
		default:
			pos = r.intn(n)
			page = start + pos
		}
		phase = (phase + 1) % (n + p.Burst)
		m := g.baseMeta(uint64(page))
		m.Seq, m.Pos = uint64(retrieval), int32(pos)
		return g.access(uint64(page), false, m)
	}}, nil
}

// newPrefetch builds prefetch_friendly: the trace is a series of runs, each
// reading consecutive pages (wrapping at Pages) from a uniformly drawn
// start, with a run length uniform in [Run/2, 3*Run/2] (at least 1). After
// the first access of a run every access is to the block after the
// previous one, which a next-block prefetcher turns into hits. Meta: Pos =
// the access's index within its run, SeqLen = the run's length, Seq = the
// run number, Lifetime = accesses left in the run.
func newPrefetch(p WorkloadParams) (Reader, error) {
	r := newRNG(p.Seed, 5)
	page, left, length, run := 0, 0, 0, -1
	return &stepFunc{gen: gen{p: p}, step: func(g *gen) Record {
		if left == 0 {
			page = r.intn(p.Pages)
			length = max(1, p.Run/2+r.intn(p.Run+1))
			left = length
			run++
		} else {
			page = (page + 1) % p.Pages
		}
		left--
		m := g.baseMeta(uint64(page))
		m.Seq, m.Pos, m.SeqLen = uint64(run), int32(length-left-1), int32(length)
		m.Lifetime = float64(left)
		return g.access(uint64(page), false, m)
	}}, nil
}

// newMixed builds mixed_locality: each step reads, with probability 0.5, a
// page of the hot set drawn with Zipf popularity (P proportional to
// 1/rank); with 0.3 the next page of a sequential scan over all pages
// (wrapping); with 0.2 a uniform page. The hot set is Hot consecutive pages
// starting at phase x Hot (mod Pages), the phase advancing every quarter
// of the run, so frequency-based policies must let go of an old hot set.
func newMixed(p WorkloadParams) (Reader, error) {
	if p.Hot > p.Pages {
		return nil, fmt.Errorf("%w: hot=%d: want <= pages (%d)", ErrBadParam, p.Hot, p.Pages)
	}
	r := newRNG(p.Seed, 6)
	z := newZipf(p.Hot)
	scan := 0
	quarter := max(1, p.Steps/4)
	return &stepFunc{gen: gen{p: p}, step: func(g *gen) Record {
		var page int
		switch u := r.float(); {
		case u < 0.5:
			phase := int(g.t) / quarter
			page = (phase*p.Hot + z.draw(r)) % p.Pages
		case u < 0.8:
			page = scan
			scan = (scan + 1) % p.Pages
		default:
			page = r.intn(p.Pages)
		}
		return g.access(uint64(page), false, g.baseMeta(uint64(page)))
	}}, nil
}
