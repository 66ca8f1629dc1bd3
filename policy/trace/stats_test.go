package trace

import (
	"reflect"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

func TestStats(t *testing.T) {
	recs := []Record{
		{Time: 1, Block: 1, Meta: policy.Meta{Size: 10, Tenant: 1}},
		{Time: 2, Block: 2, Write: true, Meta: policy.Meta{Size: 20, Pinned: true}},
		{Time: 3, Block: 1, Meta: policy.Meta{Size: 10, Tenant: 1, RefCount: 2}},
		{Time: 3, Op: OpUpdate, Block: 2},
		{Time: 4, Block: 3, Meta: policy.Meta{Size: 30, Seq: 5}},
		{Time: 5, Block: 1, Meta: policy.Meta{Size: 10}},
		{Time: 5, Op: OpFree, Block: 1},
		{Time: 6, Block: 1, Meta: policy.Meta{Size: 10}},
	}
	got, err := Summarize(&sliceReader{recs: recs})
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{Records: 8, Accesses: 6, Reads: 5, Writes: 1, Updates: 1, Frees: 1, Distinct: 4,
		Bytes: 90, DistinctBytes: 70, Reuses: 2, ReuseRatio: 2.0 / 6, MeanReuseDistance: 2,
		ReuseHist: []int64{0, 2}, Pinned: 1, Shared: 1, Tenants: 2, Sequences: 2, PeakLive: 3,
		FirstTime: 1, LastTime: 6}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestStatsMooncakePromptBlocks(t *testing.T) {
	f := openMooncakeTrace(t)
	s, err := Summarize(NewMooncake(f, mooncakeTrace, MooncakeOptions{NoDecode: true}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Sequences != 12031 || s.Accesses != 288500 || s.Distinct != 182790 {
		t.Errorf("%d requests, %d accesses, %d distinct blocks; want 12,031, 288,500 and 182,790 (the README's counts)",
			s.Sequences, s.Accesses, s.Distinct)
	}
	if s.Shared != s.Reuses {
		t.Errorf("%d accesses with RefCount > 1, %d reuses: a prompt block's RefCount counts the requests that read it", s.Shared, s.Reuses)
	}
}
