package lab

import (
	"strings"
	"testing"
)

func FuzzReadFigures(f *testing.F) {
	f.Add("seed,scenario,workload,policy,accesses,miss_count,avg_latency_ms,bytes_moved\n7,medium,chat_continuation,lru,512,19,0.19,113986\n")
	f.Add("scenario,workload,policy,accesses,miss_count,avg_latency_ms,bytes_moved,eviction_count\n")
	f.Add("a,\"b\nc\",d\n")
	f.Fuzz(func(t *testing.T, in string) {
		figs, err := ReadFigures(strings.NewReader(in), Ablation())
		if err == nil {
			for _, fg := range figs {
				if fg.Accesses < 0 || fg.Misses < 0 || fg.BytesMoved < 0 || fg.MeanLatencyMs < 0 {
					t.Fatalf("negative figure accepted: %+v", fg)
				}
			}
		}
	})
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"lru", "regret_aware:weight=6,horizon=24", "regret_aware:decay=0.5,", "cost_aware:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sp, err := ParseSpec(in)
		if err == nil && (sp.Horizon < 1 || sp.Weight < 0 || sp.Decay < 0) {
			t.Fatalf("%q: accepted %+v", in, sp)
		}
	})
}

func FuzzParseWorkload(f *testing.F) {
	for _, s := range []string{"periodic_reuse:pages=96,steps=640,period=11", "chat_continuation", "rag_burst:burst=-1,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		w, err := ParseWorkload(in)
		if err == nil && (w.Params.Pages < 0 || w.Params.Length < 0 || w.Params.Period < 0 || w.Params.Burst < 0) {
			t.Fatalf("%q: accepted %+v", in, w)
		}
	})
}
