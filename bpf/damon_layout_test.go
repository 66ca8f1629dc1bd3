package bpf

import (
	"reflect"
	"testing"
	"time"
)

func TestDamonLayout(t *testing.T) {
	const kib, mib = 1 << 10, 1 << 20
	for _, tc := range []struct {
		name    string
		regions []Region
		max     uint32
		per     uint32 // regions a block (0: the default, one)
		want    []damonTarget
	}{
		{
			name:    "the default: a region a block",
			regions: []Region{{ID: 1, PID: 9, Start: 4 * mib, End: 8 * mib, BlockSize: 2 * mib}},
			max:     100,
			want:    []damonTarget{{pid: 9, regions: []damonRange{{4 * mib, 6 * mib}, {6 * mib, 8 * mib}}}},
		},
		{
			name:    "room for four regions a block",
			regions: []Region{{ID: 1, PID: 9, Start: 4 * mib, End: 8 * mib, BlockSize: 2 * mib}},
			max:     100, per: 4,
			want: []damonTarget{{pid: 9, regions: []damonRange{{4 * mib, 4*mib + 512*kib}, {4*mib + 512*kib, 5 * mib},
				{5 * mib, 5*mib + 512*kib}, {5*mib + 512*kib, 6 * mib}, {6 * mib, 6*mib + 512*kib},
				{6*mib + 512*kib, 7 * mib}, {7 * mib, 7*mib + 512*kib}, {7*mib + 512*kib, 8 * mib}}}},
		},
		{
			name:    "room for two a block; a partial last block keeps its own pieces",
			regions: []Region{{ID: 1, PID: 9, Start: 0, End: 5 * mib, BlockSize: 2 * mib}},
			max:     6, per: 4,
			want: []damonTarget{{pid: 9, regions: []damonRange{{0, mib}, {mib, 2 * mib}, {2 * mib, 3 * mib},
				{3 * mib, 4 * mib}, {4 * mib, 5 * mib}}}},
		},
		{
			name:    "room for a block each",
			regions: []Region{{ID: 1, PID: 9, Start: 4 * mib, End: 10 * mib, BlockSize: 2 * mib}},
			max:     3, per: 4,
			want: []damonTarget{{pid: 9, regions: []damonRange{{4 * mib, 6 * mib}, {6 * mib, 8 * mib}, {8 * mib, 10 * mib}}}},
		},
		{
			name:    "too many blocks: runs of whole blocks",
			regions: []Region{{ID: 1, PID: 9, Start: 0, End: 8 * mib, BlockSize: mib}},
			max:     3,
			want:    []damonTarget{{pid: 9, regions: []damonRange{{0, 3 * mib}, {3 * mib, 6 * mib}, {6 * mib, 8 * mib}}}},
		},
		{
			name: "pieces of a quarter of the largest block; small blocks grouped to it; processes in pid order, regions by address",
			per:  4,
			regions: []Region{
				{ID: 3, PID: 20, Start: 64 * mib, End: 66 * mib, BlockSize: mib},
				{ID: 1, PID: 10, Start: 16 * mib, End: 18 * mib, BlockSize: 2 * mib},
				{ID: 2, PID: 10, Start: 0, End: mib, BlockSize: 64 * kib},
			},
			want: []damonTarget{
				{pid: 10, regions: []damonRange{{0, 512 * kib}, {512 * kib, mib},
					{16 * mib, 16*mib + 512*kib}, {16*mib + 512*kib, 17 * mib}, {17 * mib, 17*mib + 512*kib}, {17*mib + 512*kib, 18 * mib}}},
				{pid: 20, regions: []damonRange{{64 * mib, 64*mib + 512*kib}, {64*mib + 512*kib, 65 * mib},
					{65 * mib, 65*mib + 512*kib}, {65*mib + 512*kib, 66 * mib}}},
			},
		},
		{name: "nothing watched", want: []damonTarget{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[uint32]Region{}
			for _, r := range tc.regions {
				m[r.ID] = r
			}
			got := damonLayout(m, tc.max, tc.per)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("damonLayout = %+v\nwant %+v", got, tc.want)
			}
			for _, tg := range got {
				for _, r := range tg.regions {
					if r.start%4096 != 0 || r.end%4096 != 0 || r.end <= r.start {
						t.Errorf("pid %d: region %#x-%#x is not page aligned and non-empty", tg.pid, r.start, r.end)
					}
				}
			}
		})
	}
}

func TestDAMONIntervals(t *testing.T) {
	for _, tc := range []struct {
		epoch, sample, aggr string
	}{
		{"1s", "100ms", "500ms"},
		{"500ms", "50ms", "250ms"},
		{"10s", "1s", "5s"},
		{"1ms", "200µs", "1ms"},
		{"400µs", "200µs", "1ms"},
	} {
		e, s, a := dur(t, tc.epoch), dur(t, tc.sample), dur(t, tc.aggr)
		if gs, ga := DAMONIntervals(e); gs != s || ga != a {
			t.Errorf("DAMONIntervals(%s) = %s, %s; want %s, %s", e, gs, ga, s, a)
		}
	}
}

func dur(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
