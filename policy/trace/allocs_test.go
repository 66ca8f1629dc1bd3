package trace

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadersDoNotAllocate checks that the CSV, JSONL and Mooncake
// readers return a record of a line in the writers' layout without
// allocating, once their buffers have grown.
func TestReadersDoNotAllocate(t *testing.T) {
	line := func(format string) func(i int) string {
		return func(i int) string { return fmt.Sprintf(format, i) }
	}
	tests := []struct {
		name   string
		header string
		line   func(i int) string
		open   func(in string) Reader
	}{
		{"csv", strings.Join(Columns, ",") + "\n",
			line("access,%d,7,false,1,think_active,2,false,1,0.5,9,3,4,5,4096\n"),
			func(in string) Reader { return NewCSV(strings.NewReader(in), "a.csv") }},
		{"jsonl", "", line(`{"op":"access","time":%d,"block":7,"write":true,"tenant":1,"class":"think_complete",` +
			`"priority":2,"pinned":false,"refcount":1,"lifetime":0.5,"seq":9,"pos":3,"seq_len":4,"max_len":5,"size":4096}` + "\n"),
			func(in string) Reader { return NewJSONL(strings.NewReader(in), "a.jsonl") }},
		{"mooncake", "", line(`{"timestamp": %d, "input_length": 1024, "output_length": 1, "hash_ids": [1, 2]}` + "\n"),
			func(in string) Reader { return NewMooncake(strings.NewReader(in), "a.jsonl", MooncakeOptions{}) }},
	}
	for _, tt := range tests {
		var b strings.Builder
		b.WriteString(tt.header)
		for i := range 3000 {
			b.WriteString(tt.line(i))
		}
		r := tt.open(b.String())
		for range 10 {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if n := testing.AllocsPerRun(1000, func() {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations a record, want 0", tt.name, n)
		}
	}
}
