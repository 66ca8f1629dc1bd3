package trace

import (
	"errors"
	"slices"
	"testing"
)

// The expectations come from CPython 3.11 running the lab's generator
// algorithms (random.Random(seed); see labgen.go for the draws).
func TestLabWorkload(t *testing.T) {
	tests := []struct {
		name   string
		p      LabParams
		sizes  []int64 // first pages
		access []int   // first steps
		sum    int     // of all page indices
	}{
		{"long_tail_mix", LabParams{Seed: 17}, []int64{4180, 4122, 4154, 4116, 4056, 4110},
			[]int{4, 12, 33, 1, 11, 14, 50, 6, 8, 3, 8, 3, 1, 26, 1, 7, 9, 6, 86, 5, 5, 7, 0, 11, 3, 5, 1, 11, 8, 2,
				4, 12, 9, 4, 0, 13, 4, 0, 12, 7}, 4958},
		{"adversarial_prefetch", LabParams{Seed: 23}, []int64{4116, 4010, 3976, 4124, 4184, 4162},
			[]int{18, 37, 1, 51, 27, 56, 22, 40, 12, 49, 28, 32, 14, 61, 1, 38, 5, 63, 26, 33, 27, 54, 3, 45, 2, 55,
				11, 45, 23, 55}, 8038},
		{"chat_continuation", LabParams{Pages: 80, Length: 512, Seed: 42}, nil,
			[]int{8, 7, 7, 6, 5, 5, 10, 4, 4, 5, 7, 7, 4, 7, 10, 7, 11, 75, 6, 10, 9, 8, 6, 7, 9, 5, 5, 10, 5, 9, 9, 8,
				75, 11, 10, 5, 8, 9, 7, 5}, 13571},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lt, err := LabWorkload(tc.name, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if got := lt.Sizes[:len(tc.sizes)]; !slices.Equal(got, tc.sizes) {
				t.Errorf("sizes %v, want %v", got, tc.sizes)
			}
			if got := lt.Accesses[:len(tc.access)]; !slices.Equal(got, tc.access) {
				t.Errorf("accesses %v, want %v", got, tc.access)
			}
			sum := 0
			for _, a := range lt.Accesses {
				sum += a
			}
			if sum != tc.sum {
				t.Errorf("sum of page indices %d, want %d", sum, tc.sum)
			}
		})
	}
}

// TestLabWorkloadShapes checks every lab workload at its defaults: length,
// pages in range, and the structure its generator promises.
func TestLabWorkloadShapes(t *testing.T) {
	for _, name := range LabWorkloads() {
		t.Run(name, func(t *testing.T) {
			d, err := LabDefaults(name)
			if err != nil {
				t.Fatal(err)
			}
			lt, err := LabWorkload(name, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(lt.Accesses) != d.Length || len(lt.Sizes) != d.Pages {
				t.Fatalf("%d accesses over %d pages, want %d over %d", len(lt.Accesses), len(lt.Sizes), d.Length, d.Pages)
			}
			distinct := map[int]bool{}
			for _, a := range lt.Accesses {
				if a < 0 || a >= d.Pages {
					t.Fatalf("page %d out of range", a)
				}
				distinct[a] = true
			}
			if name == "periodic_reuse" && len(distinct) != d.Period {
				t.Errorf("periodic_reuse touches %d pages, want %d (its period)", len(distinct), d.Period)
			}
		})
	}
}

func TestLabWorkloadErrors(t *testing.T) {
	tests := []struct {
		name string
		p    LabParams
		want error
	}{
		{"nope", LabParams{}, ErrUnknownWorkload},
		{"chat_continuation", LabParams{Pages: 1}, ErrBadParam},
		{"mixed_locality", LabParams{Pages: 12}, ErrBadParam},
		{"rag_burst", LabParams{Pages: 21}, ErrBadParam},
		{"long_tail_mix", LabParams{Seed: -1}, ErrBadParam},
		{"adversarial_burst", LabParams{Length: -1}, ErrBadParam},
	}
	for _, tc := range tests {
		if _, err := LabWorkload(tc.name, tc.p); !errors.Is(err, tc.want) {
			t.Errorf("%s %+v: error %v, want %v", tc.name, tc.p, err, tc.want)
		}
	}
}
