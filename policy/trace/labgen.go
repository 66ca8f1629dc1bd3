package trace

// The lab's access generators (see labwl.go). Each takes a fresh
// Random(seed), independent of the one that drew the page sizes, and
// returns the page index of every step. Comments name the Python call each
// draw reproduces.

// labChat: a working set of pages 0-11; every 17 steps (from step 0) one
// slot of it gets a random page, and each step reads one of its last 8
// slots. Python evaluates the assignment's right side first, so the new
// page (randrange(num_pages)) is drawn before the slot
// (randrange(len(working_set))).
func labChat(p LabParams, r *pyRandom) []int {
	ws := make([]int, min(12, p.Pages))
	for i := range ws {
		ws[i] = i
	}
	out := make([]int, 0, p.Length)
	for step := range p.Length {
		if step%17 == 0 {
			page := r.randbelow(p.Pages)
			ws[r.randbelow(len(ws))] = page
		}
		last := ws[max(0, len(ws)-8):]
		out = append(out, last[r.choice(len(last))])
	}
	return out
}

// labRAG: length/20 rounds of 14 reads of the 16 hot pages
// (choices(hot, k=14)) then 6 distinct retrieval pages
// (sample(retrieval, k=6)), truncated to length.
func labRAG(p LabParams, r *pyRandom) []int {
	out := make([]int, 0, p.Length)
	for range p.Length / 20 {
		for range 14 {
			out = append(out, r.choicesUniform(16))
		}
		for _, j := range r.sample(p.Pages-16, 6) {
			out = append(out, 16+j)
		}
	}
	return out[:min(len(out), p.Length)]
}

// labPeriodic: step s reads page (s mod period)*3 mod pages; no draws, so
// only period distinct pages are ever read.
func labPeriodic(p LabParams, _ *pyRandom) []int {
	out := make([]int, p.Length)
	for s := range out {
		if p.Period > 0 {
			out[s] = (s % p.Period) * 3 % p.Pages
		}
	}
	return out
}

// labLongTail: each step reads, with probability 0.7 (random() < 0.7), a
// uniform page of the 10 hot ones (choice), otherwise a page of the tail
// (pages 10..) with weight 1/(rank+1) (choices(tail, weights=..., k=1)).
func labLongTail(p LabParams, r *pyRandom) []int {
	cum := make([]float64, p.Pages-10)
	sum := 0.0
	for i := range cum {
		sum += 1.0 / float64(i+1)
		cum[i] = sum
	}
	out := make([]int, p.Length)
	for s := range out {
		if r.random() < 0.7 {
			out[s] = r.choice(10)
		} else {
			out[s] = 10 + r.choicesCum(cum)
		}
	}
	return out
}

// labPrefetch: step s reads page s mod pages.
func labPrefetch(p LabParams, _ *pyRandom) []int {
	out := make([]int, p.Length)
	for s := range out {
		out[s] = s % p.Pages
	}
	return out
}

// labAdvPrefetch: even steps read a uniform page of the lower half
// (randrange(0, pages//2)), odd steps one of the upper half
// (randrange(pages//2, pages)).
func labAdvPrefetch(p LabParams, r *pyRandom) []int {
	half := p.Pages / 2
	out := make([]int, p.Length)
	for s := range out {
		if s%2 == 0 {
			out[s] = r.randrange(0, half)
		} else {
			out[s] = r.randrange(half, p.Pages)
		}
	}
	return out
}

// labAdvBurst: the pages are split in thirds (early, middle, late). Until
// length is reached, a round reads an anchor of burst distinct early pages
// (sample), burst distinct middle pages, the first burst/2 anchor pages
// again and burst distinct late pages; the trace is truncated to length.
func labAdvBurst(p LabParams, r *pyRandom) []int {
	n := p.Pages
	early, middle := n/3, 2*n/3
	groups := [][2]int{{0, early}, {early, middle}, {middle, n}} // [start, end)
	draw := func(g [2]int) []int {
		size := g[1] - g[0]
		idx := r.sample(size, min(p.Burst, size))
		for i := range idx {
			idx[i] += g[0]
		}
		return idx
	}
	out := make([]int, 0, p.Length+4*p.Burst)
	for len(out) < p.Length {
		anchor := draw(groups[0])
		out = append(out, anchor...)
		out = append(out, draw(groups[1])...)
		out = append(out, anchor[:min(len(anchor), max(1, min(p.Burst/2, len(anchor))))]...)
		out = append(out, draw(groups[2])...)
	}
	return out[:p.Length]
}

// labMixed: phases of 60 steps in turn: a uniform page of the 12 hot ones
// (choice), a uniform page of the first 20 of the rest (choice(tail[:20])),
// and page 5*step mod pages.
func labMixed(p LabParams, r *pyRandom) []int {
	tail := min(20, p.Pages-12)
	out := make([]int, p.Length)
	for s := range out {
		switch (s / 60) % 3 {
		case 0:
			out[s] = r.choice(12)
		case 1:
			out[s] = 12 + r.choice(tail)
		default:
			out[s] = s * 5 % p.Pages
		}
	}
	return out
}
