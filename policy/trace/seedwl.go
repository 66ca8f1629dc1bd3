package trace

import (
	"fmt"
	"io"
)

// The three workloads of the seed study's regret ablation.

func init() {
	registerWorkload("chat_continuation",
		"a growing conversation read with strong recency (the seed's 80 pages, 512 steps)",
		newChat, "pages", 80, "steps", 512)
	registerWorkload("periodic_reuse",
		"a fixed cycle of period pages, drifting through the page set (96 pages, 640 steps, period 11)",
		newPeriodic, "pages", 96, "steps", 640, "period", 11)
	registerWorkload("adversarial_burst",
		"bursts alternating early, middle and late page sets with revisits 12-20 steps later (112 pages, 640 steps, burst 14)",
		newAdversarial, "pages", 112, "steps", 640, "burst", 14, "gap_min", 12, "gap_max", 20)
}

// Chat reading probabilities.
const (
	chatPromptPages = 2    // pages of the system prompt at the start of the conversation
	chatPromptProb  = 0.10 // share of reads that go to the system prompt
	chatRecentP     = 0.40 // parameter of the geometric distance back from the newest page
)

// newChat builds chat_continuation: one conversation whose context grows
// from 1 to Pages pages over Steps steps. Page k is appended (a write
// access to block k) at the first step t with ceil((t+1)*Pages/Steps) > k,
// so the appends are spread evenly and the last one lands on the last step.
// Every other step reads one existing page: with probability 0.10 one of
// the first two pages (the system prompt, uniformly), otherwise the page d
// places behind the newest, d geometric with p = 0.40 (mean 1.5; 87% of
// these reads fall within the newest 4 pages) and clamped to the first
// page. The working set is the last few pages, so LRU does well when a few
// pages fit. Meta: Seq 0, Pos = page, SeqLen = pages so far, MaxLen =
// Pages, Lifetime = steps left in the conversation.
func newChat(p WorkloadParams) (Reader, error) {
	if p.Pages > p.Steps {
		return nil, fmt.Errorf("%w: pages=%d: want <= steps (%d): every page is appended by one step", ErrBadParam, p.Pages, p.Steps)
	}
	r := newRNG(p.Seed, 1)
	n := 0 // pages appended
	return &stepFunc{gen: gen{p: p}, step: func(g *gen) Record {
		target := (int(g.t)+1)*p.Pages + p.Steps - 1
		target /= p.Steps
		page, write := 0, false
		if n < target {
			page, write = n, true
			n++
		} else if r.float() < chatPromptProb {
			page = r.intn(min(chatPromptPages, n))
		} else {
			page = max(0, n-1-r.geometric(chatRecentP))
		}
		m := g.baseMeta(uint64(page))
		m.Pos, m.SeqLen, m.MaxLen = int32(page), int32(n), int32(p.Pages)
		m.Lifetime = float64(int64(p.Steps) - g.t)
		return g.access(uint64(page), write, m)
	}}, nil
}

// newPeriodic builds periodic_reuse: Period slots read round-robin, slot
// t mod Period at step t, so every page is re-read exactly Period steps
// after its previous read and an LRU fast tier smaller than Period pages
// never hits. The page in a slot changes over the run so that the cycle
// drifts through all Pages pages: slot j holds pages j, j+Period,
// j+2*Period, ... (those below Pages), each for an equal share of the
// ceil(Steps/Period) cycles. A page leaves its slot for good, so the only
// reuse distance in the trace is Period. With the seed's 96 pages and
// period 11 each page stays for about 6.5 cycles. Meta: Lifetime = steps
// until the page leaves its slot.
func newPeriodic(p WorkloadParams) (Reader, error) {
	if p.Pages < p.Period {
		return nil, fmt.Errorf("%w: pages=%d: want >= period (%d)", ErrBadParam, p.Pages, p.Period)
	}
	P, cycles := p.Period, (p.Steps+p.Period-1)/p.Period
	return &stepFunc{gen: gen{p: p}, step: func(g *gen) Record {
		j, c := int(g.t)%P, int(g.t)/P
		pages := 1 + (p.Pages-1-j)/P // pages that pass through slot j
		r := c * pages / cycles
		page := uint64(j + r*P)
		m := g.baseMeta(page)
		// the page leaves at the first cycle c' with c'*pages/cycles > r
		leave := ((r+1)*cycles + pages - 1) / pages
		m.Lifetime = float64((leave - c) * P)
		return g.access(page, false, m)
	}}, nil
}

// adversarial is the state of adversarial_burst.
type adversarial struct {
	gen
	r      *rng
	cursor [3]int    // next fresh page of each set, relative to its start
	due    []revisit // scheduled revisits, at most GapMax of them
	bounds [4]int    // set s is pages [bounds[s], bounds[s+1])
}

type revisit struct {
	page     uint64
	at, last int64 // earliest and latest step of the revisit
}

// newAdversarial builds adversarial_burst: the pages are split in three
// equal sets (early, middle, late) and the steps in bursts of Burst steps;
// burst k draws fresh pages from set k mod 3, walking through the set with
// a cursor that wraps. Half of the pages (chosen by a hash of seed and
// page, so the same pages every pass) are revisited once after each fresh
// read, at a gap drawn uniformly from [GapMin, GapMax]; a step with a
// revisit due (earliest due first) makes the revisit instead of a fresh
// read, and a revisit that cannot be placed by GapMax is dropped, so every
// revisit gap is in [GapMin, GapMax]. About a third of the steps are
// revisits, landing in bursts of another set: under LRU with fewer than
// GapMin-1 pages of room each revisited page has just been evicted, which
// is the pattern regret-aware eviction learns from (it needs a horizon of
// at least GapMin). Meta: Lifetime = steps to the page's revisit, or 0.
func newAdversarial(p WorkloadParams) (Reader, error) {
	switch {
	case p.Pages < 3:
		return nil, fmt.Errorf("%w: pages=%d: want >= 3 (three page sets)", ErrBadParam, p.Pages)
	case p.GapMin > p.GapMax:
		return nil, fmt.Errorf("%w: gap_min=%d: want <= gap_max (%d)", ErrBadParam, p.GapMin, p.GapMax)
	}
	a := &adversarial{gen: gen{p: p}, r: newRNG(p.Seed, 3)}
	for s := range 4 {
		a.bounds[s] = s * p.Pages / 3
	}
	return a, nil
}

// revisited reports whether page is one of the pages revisited after a
// fresh read.
func (a *adversarial) revisited(page uint64) bool {
	return mix64(page^uint64(a.p.Seed)<<20^0x3c6ef372fe94f82b)&1 == 0
}

func (a *adversarial) Next() (Record, error) {
	if a.done() {
		return Record{}, io.EOF
	}
	now := a.t
	best := -1
	for i := 0; i < len(a.due); {
		d := a.due[i]
		if d.last < now { // missed its window: drop it
			a.due = append(a.due[:i], a.due[i+1:]...)
			continue
		}
		if d.at <= now && (best < 0 || d.last < a.due[best].last) {
			best = i
		}
		i++
	}
	if best >= 0 {
		page := a.due[best].page
		a.due = append(a.due[:best], a.due[best+1:]...)
		return a.access(page, false, a.baseMeta(page)), nil
	}
	set := int(now/int64(a.p.Burst)) % 3
	size := a.bounds[set+1] - a.bounds[set]
	page := uint64(a.bounds[set] + a.cursor[set])
	a.cursor[set] = (a.cursor[set] + 1) % size
	m := a.baseMeta(page)
	if a.revisited(page) {
		gap := int64(a.p.GapMin + a.r.intn(a.p.GapMax-a.p.GapMin+1))
		a.due = append(a.due, revisit{page: page, at: now + gap, last: now + int64(a.p.GapMax)})
		m.Lifetime = float64(gap)
	}
	return a.access(page, false, m), nil
}
