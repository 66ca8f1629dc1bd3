package policy

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Age buckets tile the ages without gaps: bucket i+1 starts where bucket i
// ends, and ageWidth is the number of ages in each.
func TestAgeBuckets(t *testing.T) {
	start := int64(0)
	for i := range ageBuckets - 1 {
		w := int64(ageWidth(i))
		if got := ageBucket(start); got != i {
			t.Fatalf("age %d: bucket %d, want %d", start, got, i)
		}
		if got := ageBucket(start + w - 1); got != i {
			t.Fatalf("age %d (last of bucket %d, width %d): bucket %d", start+w-1, i, w, got)
		}
		start += w
	}
	if got := ageBucket(1 << 62); got != ageBuckets-1 {
		t.Fatalf("age 2^62: bucket %d, want the last, %d", got, ageBuckets-1)
	}
}

// The model ranks by hits per unit of space-time: a class that is hit at
// age 10 beats one that ends unhit at age 10, and a class hit at age 10
// beats one hit at age 1000 as often.
func TestDensityModel(t *testing.T) {
	tests := []struct {
		name   string
		record func(m *densityModel)
		better int // the class of higher density at age 0
		worse  int
	}{
		{
			name: "hits beat ends",
			record: func(m *densityModel) {
				for range 100 {
					m.hit(0, 10, 1)
					m.end(1, 10, 1)
				}
			},
			better: 0, worse: 1,
		},
		{
			name: "short reuse beats long reuse",
			record: func(m *densityModel) {
				for range 100 {
					m.hit(0, 10, 1)
					m.hit(1, 1000, 1)
				}
			},
			better: 0, worse: 1,
		},
		{
			name: "frequent reuse beats rare reuse",
			record: func(m *densityModel) {
				for range 100 {
					m.hit(0, 50, 1)
					m.hit(1, 50, 1)
					m.end(1, 50, 3)
				}
			},
			better: 0, worse: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newDensityModel(2, 0.9, 0)
			tc.record(&m)
			m.refresh()
			hi, lo := m.density(tc.better, 0), m.density(tc.worse, 0)
			if hi <= lo || hi <= 0 {
				t.Fatalf("density of class %d %.6g, of class %d %.6g: want the first higher and > 0",
					tc.better, hi, tc.worse, lo)
			}
		})
	}
}

// Before the model has learned anything every density is 0, so with
// every resident block sampled the victim is the least recently used: LRU.
func TestHitDensityUnlearnedIsLRU(t *testing.T) {
	p := mustNew(t, "hit_density:samples=4096", Env{CapacityBlocks: 3, Seed: 1})
	replay(t, p, 3, []step{acc(1), acc(2), acc(3), acc(1), acc(4, 2), acc(5, 3), acc(6, 1)})
}

// Blocks read by many requests are hit again, blocks read once never are:
// once the model has learned that, victims are the once-read blocks, even
// when a shared block is the least recently used. 16 shared blocks come
// back every 32 accesses, between which 16 blocks are read once: LRU with
// 20 blocks would miss every access.
func TestHitDensityLearnsSharedBlocks(t *testing.T) {
	const capacity = 20
	p := mustNew(t, "hit_density:samples=4096,horizon=1", Env{CapacityBlocks: capacity, Seed: 1})
	d := newUnitDriver(t, p, capacity)
	shared := func(i int) BlockID { return BlockID(i % 16) }
	next := BlockID(1000)
	evictedShared := 0
	for step := range 20000 {
		id := shared(step)
		if step%2 == 1 {
			id, next = next, next+1 // a block read once
		}
		b := d.block(id)
		b.Meta.RefCount = max(b.Meta.RefCount+1, 1)
		for _, v := range d.access(id) {
			if v < 16 && step > 10000 {
				evictedShared++
			}
		}
	}
	if evictedShared != 0 {
		t.Fatalf("after learning, %d shared blocks were evicted; want none", evictedShared)
	}
}

// Bad parameters are refused with ErrBadParam.
func TestHitDensityParams(t *testing.T) {
	for _, spec := range []string{"hit_density:samples=0", "hit_density:decay=0", "hit_density:decay=1.5",
		"hit_density:period=0", "hit_density:prior=-1", "hit_density:horizon=0", "hit_density:features=size",
		"hit_density:features=reads+x"} {
		if _, err := New(spec, Env{}); !errors.Is(err, ErrBadParam) {
			t.Errorf("New(%q): %v, want ErrBadParam", spec, err)
		}
	}
	if _, err := New("hit_density:features=none", Env{}); err != nil {
		t.Errorf("features=none: %v", err)
	}
}

// Forget drops every trace of a block: resident entries and ghosts.
func TestHitDensityForget(t *testing.T) {
	p := mustNew(t, "hit_density:horizon=1", Env{CapacityBlocks: 4, Seed: 1}).(*HitDensity)
	d := newUnitDriver(t, p, 4)
	d.run(1, 2, 3, 4, 5, 6, 7, 8, 1, 2)
	for _, b := range d.blocks {
		p.Forget(b)
	}
	if p.tab.len() != 0 || len(p.res) != 0 || p.ghosts.len() != 0 {
		t.Fatalf("after forgetting every block: %d records, %d residents, %d ghosts",
			p.tab.len(), len(p.res), p.ghosts.len())
	}
}

// A hit_density record is 32 bytes and a slot 24, so a run of slots
// Victim rates spans two or three cache lines and an Evict's record one.
func TestHitDensityEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(hdRec{}); n != 32 {
		t.Fatalf("hdRec is %d bytes, want 32", n)
	}
	if n := unsafe.Sizeof(hdSlot{}); n != 24 {
		t.Fatalf("hdSlot is %d bytes, want 24", n)
	}
}

// ageBucket, branch-free, places ages as the octave split it documents:
// one bucket per age below ageDirect, then 2^ageSubBits equal buckets per
// octave, the last bucket taking every age beyond.
func TestAgeBucket(t *testing.T) {
	want := func(a int64) int {
		if a < ageDirect {
			return int(max(a, 0))
		}
		e := bits.Len64(uint64(a)) - 1
		sub := int(a>>(e-ageSubBits)) & (1<<ageSubBits - 1)
		return min(ageDirect+(e-ageSubBits-1)<<ageSubBits+sub, ageBuckets-1)
	}
	ages := []int64{-5, -1, 0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 1<<47 - 1, 1 << 47, 1<<62 + 3, math.MaxInt64}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		ages = append(ages, int64(r.Uint64()>>r.IntN(64)))
	}
	for _, a := range ages {
		if got := ageBucket(a); got != want(a) {
			t.Fatalf("age %d: bucket %d, want %d", a, got, want(a))
		}
	}
}

// ageStart is the least age of its bucket: the age before it is in the
// bucket before.
func TestAgeStart(t *testing.T) {
	for i := 1; i < ageBuckets; i++ {
		a := ageStart(i)
		if ageBucket(a) != i || ageBucket(a-1) != i-1 {
			t.Fatalf("bucket %d starts at age %d, in bucket %d; age %d in bucket %d", i, a, ageBucket(a), a-1,
				ageBucket(a-1))
		}
	}
}

// A model adopting another's counts places them at the ages scaled up:
// what a shadow seeing one access in 4 learned at age 10 lands at age 40.
func TestDensityModelAdopt(t *testing.T) {
	tests := []struct {
		name  string
		scale int64
		age   int64
	}{
		{"unscaled", 1, 10},
		{"one access in 4", 4, 40},
		{"one access in 32", 32, 320},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := newDensityModel(2, 1, 0)
			for range 100 {
				src.hit(0, 10, 1)
				src.end(1, 10, 1)
			}
			m := newDensityModel(2, 1, 0)
			m.adopt(&src, tc.scale)
			if h, e := m.hits[0][ageBucket(tc.age)], m.ends[1][ageBucket(tc.age)]; h != 100 || e != 100 {
				t.Fatalf("at age %d: %v hits of class 0, %v ends of class 1; want 100 each", tc.age, h, e)
			}
			if hi, lo := m.density(0, 0), m.density(1, 0); hi <= lo || hi <= 0 {
				t.Fatalf("densities after adopting: class 0 %.6g, class 1 %.6g; want the first higher and > 0", hi, lo)
			}
		})
	}
}

// TestHitDensitySmallSamples: Victim loads a run's slots ahead of rating
// them; with samples=1 or 2 (valid) and one resident more, a run reaches
// past the residents, wrapped once: it must not index out of range.
func TestHitDensitySmallSamples(t *testing.T) {
	for _, samples := range []int{1, 2} {
		p := NewHitDensity(HitDensityConfig{Samples: samples, Decay: 0.9, Period: 0.5, Horizon: 1,
			Features: FeatureReads}, Env{CapacityBlocks: 8})
		for i := range samples + 1 {
			b := &Block{ID: BlockID(i)}
			p.Access(b, Time(i))
			p.Admit(b, Time(i))
		}
		for k := range 200 {
			if _, ok := p.Victim(Time(100 + k)); !ok {
				t.Fatal("no victim")
			}
		}
	}
}
