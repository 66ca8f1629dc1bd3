package main

import (
	"math/rand/v2"
	"slices"
)

// blockSets are the workload's deterministic block sets: A and B the
// shifting hot sets, C the regret phase's revisited set and D what the
// regret phase reads between revisits. They are disjoint.
type blockSets struct {
	A, B, C, D []int
}

// chooseSets picks the sets from seed over an arena of total blocks:
// A, B and C spread over the arena (one block per stratum), D from what
// is left. Sizes are cut to fit the arena.
func chooseSets(seed int64, total, hot, regret, other int) blockSets {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6b7674696572))
	used := make([]bool, total)
	var s blockSets
	s.A = pickSpread(rng, min(hot, total), used)
	s.B = pickSpread(rng, min(hot, free(used)), used)
	s.C = pickSpread(rng, min(regret, free(used)), used)
	s.D = pickSpread(rng, min(other, free(used)), used)
	return s
}

func free(used []bool) int {
	n := 0
	for _, u := range used {
		if !u {
			n++
		}
	}
	return n
}

// pickSpread picks n unused blocks, one at random from each of n equal
// strata of the arena (any unused block when a stratum is all used),
// marks them used and returns them sorted.
func pickSpread(rng *rand.Rand, n int, used []bool) []int {
	out := make([]int, 0, n)
	total := len(used)
	for k := range n {
		lo, hi := k*total/n, (k+1)*total/n
		b := pickIn(rng, lo, hi, used)
		if b < 0 {
			b = pickIn(rng, 0, total, used)
		}
		if b < 0 {
			break
		}
		used[b] = true
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// pickIn returns a random unused block in [lo, hi), or -1.
func pickIn(rng *rand.Rand, lo, hi int, used []bool) int {
	var cand []int
	for b := lo; b < hi; b++ {
		if !used[b] {
			cand = append(cand, b)
		}
	}
	if len(cand) == 0 {
		return -1
	}
	return cand[rng.IntN(len(cand))]
}
