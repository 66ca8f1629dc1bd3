package trace

import "fmt"

// The two workloads of kv-hierarchy-lab that the seed study does not use
// (see labgen.go for the lab's exact generators); these are kvtier's
// versions, drawn from kvtier's generator so that they obey the usual
// parameters and seeds.

func init() {
	registerWorkload("long_tail_mix",
		"70% of reads on a small uniform hot set, 30% on a broad Zipf tail (the lab's long_tail_mix)",
		newLongTail, "pages", 128, "steps", 400, "hot", 10)
	registerWorkload("adversarial_prefetch",
		"reads alternating between a uniform page of the lower and of the upper half: the next block is "+
			"almost never read next, so a next-block prefetcher only wastes moves (the lab's adversarial_prefetch)",
		newAdvPrefetch, "pages", 64, "steps", 256)
}

// newLongTail builds long_tail_mix: each step reads, with probability 0.7,
// a uniform page of the Hot pages [0, Hot); otherwise a page of the tail
// [Hot, Pages) drawn with Zipf popularity, P(Hot+k) proportional to
// 1/(k+1), so the first tail pages come back often and most of the tail
// rarely. A fast tier that holds the hot set and a few popular tail pages
// catches most reads; recency alone lets tail reads push hot pages out.
// Meta: Pos = rank within the hot set or the tail.
func newLongTail(p WorkloadParams) (Reader, error) {
	if p.Hot >= p.Pages {
		return nil, fmt.Errorf("%w: hot=%d: want < pages (%d)", ErrBadParam, p.Hot, p.Pages)
	}
	r := newRNG(p.Seed, 20)
	z := newZipf(p.Pages - p.Hot)
	return &stepFunc{gen: gen{p: p}, step: func(g *gen) Record {
		var page, pos int
		if r.float() < 0.7 {
			pos = r.intn(p.Hot)
			page = pos
		} else {
			pos = z.draw(r)
			page = p.Hot + pos
		}
		m := g.baseMeta(uint64(page))
		m.Pos = int32(pos)
		return g.access(uint64(page), false, m)
	}}, nil
}

// newAdvPrefetch builds adversarial_prefetch: even steps read a uniform
// page of [0, Pages/2), odd steps a uniform page of [Pages/2, Pages).
// Consecutive reads are in different halves, so the block after the one
// just read is the next read only by chance (about 1/(Pages/2) of the odd
// steps): a next-block prefetcher's moves are almost all wasted.
func newAdvPrefetch(p WorkloadParams) (Reader, error) {
	if p.Pages < 2 {
		return nil, fmt.Errorf("%w: pages=%d: want >= 2", ErrBadParam, p.Pages)
	}
	r := newRNG(p.Seed, 21)
	half := p.Pages / 2
	return &stepFunc{gen: gen{p: p}, step: func(g *gen) Record {
		page := r.intn(half)
		if g.t%2 == 1 {
			page = half + r.intn(p.Pages-half)
		}
		return g.access(uint64(page), false, g.baseMeta(uint64(page)))
	}}, nil
}
