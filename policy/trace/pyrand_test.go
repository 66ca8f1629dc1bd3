package trace

import (
	"slices"
	"testing"
)

// The vectors were produced by CPython 3.11's random module:
//
//	r = random.Random(seed)
//	[r.getrandbits(32) for _ in range(3)], [r.random() for _ in range(2)],
//	[r.randint(-64, 64) for _ in range(5)], [r.randrange(12) for _ in range(3)],
//	r.sample(range(37), 14), r.sample(range(200), 10), r.choices(range(20), k=4),
//	r.choices(range(118), weights=[1.0/(i+1) for i in range(118)], k=5)
//
// pyVector is one seed's draws as CPython made them.
type pyVector struct {
	seed     uint64
	u        []uint32
	f        []float64
	randint  []int
	rrange   []int
	samplePl []int
	sampleSt []int
	choices  []int
	weighted []int
}

// pyVectors are the draws of four seeds.
var pyVectors = []pyVector{
	{7, []uint32{1390851128, 4071050724, 647892279}, []float64{0.3948234964231735, 0.04828642362681235},
		[]int{-40, 29, -50, -10, -55}, []int{1, 6, 6},
		[]int{4, 15, 5, 27, 3, 7, 30, 31, 20, 28, 18, 1, 26, 24},
		[]int{101, 12, 56, 11, 142, 34, 74, 107, 36, 138}, []int{2, 6, 16, 3}, []int{12, 16, 3, 10, 0}},
	{42, []uint32{2746317213, 478163327, 107420369}, []float64{0.7415504997598329, 0.24489185380347622},
		[]int{-29, -38, -42, 44, -56}, []int{0, 1, 3},
		[]int{14, 32, 1, 12, 26, 36, 31, 18, 8, 25, 0, 24, 5, 22},
		[]int{108, 87, 71, 39, 55, 195, 86, 26, 23, 97}, []int{1, 16, 12, 16}, []int{27, 9, 102, 3, 10}},
	{0, []uint32{3626764237, 1654615998, 3255389356}, []float64{0.890243920837131, 0.04048437818077755},
		[]int{60, 39, 13, 58, 27}, []int{9, 3, 8},
		[]int{8, 18, 36, 6, 16, 9, 31, 3, 23, 2, 21, 10, 15, 17},
		[]int{25, 90, 111, 80, 156, 163, 52, 141, 122, 113}, []int{17, 5, 16, 10}, []int{0, 25, 4, 45, 19}},
	{1<<40 + 5, []uint32{2166296868, 2220160828, 1153647273}, []float64{0.6637982795073579, 0.027427945516699803},
		[]int{-53, -22, -44, -30, -3}, []int{10, 10, 2},
		[]int{15, 24, 7, 14, 29, 3, 31, 13, 1, 10, 35, 33, 9, 4},
		[]int{181, 24, 45, 170, 86, 14, 57, 118, 29, 38}, []int{15, 4, 12, 12}, []int{6, 8, 2, 0, 0}},
}

// TestPyRandom: the Go generator draws what CPython's random.Random does.
func TestPyRandom(t *testing.T) {
	cum := make([]float64, 118)
	sum := 0.0
	for i := range cum {
		sum += 1.0 / float64(i+1)
		cum[i] = sum
	}
	for _, tc := range pyVectors {
		checkPyVector(t, tc, cum)
	}
}

// checkPyVector draws tc's sequence from a generator seeded with tc.seed
// and compares every draw.
func checkPyVector(t *testing.T, tc pyVector, cum []float64) {
	t.Helper()
	r := newPyRandom(tc.seed)
	var u []uint32
	for range tc.u {
		u = append(u, r.getrandbits(32))
	}
	var f []float64
	for range tc.f {
		f = append(f, r.random())
	}
	var ri, rr, ch, wc []int
	for range tc.randint {
		ri = append(ri, r.randint(-64, 64))
	}
	for range tc.rrange {
		rr = append(rr, r.randrange(0, 12))
	}
	pl, st := r.sample(37, 14), r.sample(200, 10)
	for range tc.choices {
		ch = append(ch, r.choicesUniform(20))
	}
	for range tc.weighted {
		wc = append(wc, r.choicesCum(cum))
	}
	for _, c := range []struct {
		name      string
		got, want any
		eq        bool
	}{
		{"getrandbits", u, tc.u, slices.Equal(u, tc.u)},
		{"random", f, tc.f, slices.Equal(f, tc.f)},
		{"randint", ri, tc.randint, slices.Equal(ri, tc.randint)},
		{"randrange", rr, tc.rrange, slices.Equal(rr, tc.rrange)},
		{"sample pool", pl, tc.samplePl, slices.Equal(pl, tc.samplePl)},
		{"sample set", st, tc.sampleSt, slices.Equal(st, tc.sampleSt)},
		{"choices", ch, tc.choices, slices.Equal(ch, tc.choices)},
		{"weighted choices", wc, tc.weighted, slices.Equal(wc, tc.weighted)},
	} {
		if !c.eq {
			t.Errorf("seed %d %s: got %v, want %v", tc.seed, c.name, c.got, c.want)
		}
	}
}
