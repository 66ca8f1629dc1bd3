package trace

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
)

func TestRAGBurstShape(t *testing.T) {
	recs := mustWorkload(t, "rag_burst", WorkloadParams{Seed: 7})
	// retrieval bursts: 8 consecutive pages of one document, then 8
	// generation steps on the hot pages and that document
	retrievals := map[uint64]int{}
	for i := 0; i+16 <= len(recs); i += 16 {
		doc := (recs[i].Block - 8) / 8
		retrievals[doc]++
		for k := range 8 {
			if want := 8 + doc*8 + uint64(k); recs[i+k].Block != want {
				t.Fatalf("step %d: block %d, want %d (burst of document %d)", i+k, recs[i+k].Block, want, doc)
			}
		}
		for k := 8; k < 16; k++ {
			b := recs[i+k].Block
			if b >= 8 && (b-8)/8 != doc {
				t.Fatalf("step %d: generation read block %d outside the hot set and document %d", i+k, b, doc)
			}
		}
	}
	top := 0
	for _, n := range retrievals {
		top = max(top, n)
	}
	if top < 5 || len(retrievals) < 5 {
		t.Errorf("retrievals %v: want a popular document and a long tail", retrievals)
	}
}

func TestPrefetchFriendlyIsSequential(t *testing.T) {
	recs := mustWorkload(t, "prefetch_friendly", WorkloadParams{Seed: 42})
	next := 0
	for i := 1; i < len(recs); i++ {
		if recs[i].Block == (recs[i-1].Block+1)%128 {
			next++
			if recs[i].Meta.Pos != recs[i-1].Meta.Pos+1 {
				t.Fatalf("step %d: a run's position does not advance", i)
			}
		}
	}
	if share := float64(next) / float64(len(recs)-1); share < 0.88 {
		t.Errorf("%.2f of accesses follow the previous block, want about 15/16", share)
	}
}

func TestMixedLocalityShape(t *testing.T) {
	recs := mustWorkload(t, "mixed_locality", WorkloadParams{Seed: 91})
	for q := range 4 {
		inHot := 0
		part := recs[q*160 : (q+1)*160]
		for _, r := range part {
			if r.Block >= uint64(q*12) && r.Block < uint64(q*12+12) {
				inHot++
			}
		}
		// 0.5 from the hot set plus scan and uniform reads that land in it
		if share := float64(inHot) / float64(len(part)); share < 0.4 || share > 0.75 {
			t.Errorf("quarter %d: %.2f of reads in its hot set, want about 0.55", q, share)
		}
	}
}

func TestMultiTenantShape(t *testing.T) {
	recs := mustWorkload(t, "multi_tenant", WorkloadParams{Seed: 42})
	count := make([]int, 3)
	for _, r := range recs {
		k := int(r.Meta.Tenant)
		if int(r.Block)/40 != k || r.Meta.Priority != policy.Priority(2-k) || r.Meta.Pos != int32(r.Block)%40 {
			t.Fatalf("record %+v: tenant, priority or page range disagree", r)
		}
		count[k]++
	}
	if !(count[0] > count[1] && count[1] > count[2]) {
		t.Errorf("tenant traffic %v, want decreasing with the tenant index", count)
	}
}

func TestReasoningLifecycle(t *testing.T) {
	recs := mustWorkload(t, "reasoning", WorkloadParams{Seed: 7})
	class := map[uint64]policy.Class{}
	freed := map[uint64]bool{}
	updates, frees, accesses := 0, 0, 0
	for _, r := range recs {
		if freed[r.Block] {
			t.Fatalf("record %+v after the block was freed", r)
		}
		prev, seen := class[r.Block]
		switch r.Op {
		case OpAccess:
			accesses++
			if seen && prev != r.Meta.Class {
				t.Fatalf("access changed block %d's class %v -> %v without an update", r.Block, prev, r.Meta.Class)
			}
			if r.Meta.Class == policy.ClassOutputCritical && r.Meta.Pos > 8 {
				// an output block: every think block of its sequence has completed
				for k, c := range class {
					if k/64 == r.Block/64 && c == policy.ClassThinkActive && r.Block%64 > k%64 {
						t.Fatalf("output block %d accessed while think block %d is active", r.Block, k)
					}
				}
			}
		case OpUpdate:
			updates++
			if prev != policy.ClassThinkActive || r.Meta.Class != policy.ClassThinkComplete {
				t.Fatalf("update of block %d: %v -> %v, want think_active -> think_complete", r.Block, prev, r.Meta.Class)
			}
		case OpFree:
			frees++
			freed[r.Block] = true
			delete(class, r.Block)
			continue
		}
		class[r.Block] = r.Meta.Class
		if r.Block/64 != r.Meta.Seq || int32(r.Block%64) != r.Meta.Pos || r.Meta.Pos >= r.Meta.MaxLen || r.Meta.Lifetime <= 0 {
			t.Fatalf("record %+v: key, Seq, Pos, MaxLen or Lifetime disagree", r)
		}
	}
	if accesses != 4000 || updates == 0 || frees == 0 {
		t.Errorf("%d accesses, %d updates, %d frees: want 4000 and some of each", accesses, updates, frees)
	}
}

func TestLongContextShape(t *testing.T) {
	p := WorkloadParams{Seed: 7, Pages: 40, Steps: 2000, Sinks: 2, Window: 5}
	recs := mustWorkload(t, "long_context", p)
	seqs, freed := map[uint64]bool{}, map[uint64]bool{}
	var n int32
	var readSinces []uint64
	for i, r := range recs {
		if freed[r.Block] {
			t.Fatalf("record %d touches freed block %d", i, r.Block)
		}
		if r.Op == OpFree {
			freed[r.Block] = true
			continue
		}
		seqs[r.Meta.Seq] = true
		if r.Meta.Pinned != (r.Meta.Pos < 2) {
			t.Fatalf("record %+v: only sinks are pinned", r)
		}
		if r.Write {
			if r.Meta.Pos != n && !(r.Meta.Pos == 0 && n == 40) {
				t.Fatalf("record %d appends pos %d, want %d", i, r.Meta.Pos, n)
			}
			if n >= 3 && len(readSinces) < 2 {
				t.Fatalf("record %d: the previous decode step read %d sinks, want 2", i, len(readSinces))
			}
			n, readSinces = r.Meta.Pos+1, nil
			continue
		}
		if r.Meta.Pos < 2 {
			readSinces = append(readSinces, r.Block)
		}
		if r.Meta.Pos >= n || r.Meta.SeqLen != n {
			t.Fatalf("record %+v: reads beyond the sequence of %d blocks", r, n)
		}
	}
	if len(seqs) < 2 || len(freed) < 40 {
		t.Errorf("%d sequences, %d blocks freed: want the first sequence freed and a second started", len(seqs), len(freed))
	}
}
