package policy

import "testing"

func TestMissCount(t *testing.T) {
	type op struct {
		do   byte // 'm' miss, 't' take (want is the result), 'r' reset, 'f' forget
		id   BlockID
		want int64
	}
	tests := []struct {
		name string
		ops  []op
	}{
		{"misses of one block add up", []op{{'m', 7, 0}, {'m', 7, 0}, {'m', 7, 0}, {'t', 7, 3}}},
		{"take clears", []op{{'m', 7, 0}, {'t', 7, 1}, {'t', 7, 0}}},
		{"another block restarts the count", []op{{'m', 7, 0}, {'m', 7, 0}, {'m', 8, 0}, {'t', 7, 0}, {'t', 8, 1}}},
		{"take of another block keeps the count", []op{{'m', 7, 0}, {'m', 7, 0}, {'t', 8, 0}, {'t', 7, 2}}},
		{"block 0 is a block like any other", []op{{'t', 0, 0}, {'m', 0, 0}, {'m', 0, 0}, {'t', 0, 2}, {'t', 0, 0}}},
		{"reset clears any block", []op{{'m', 7, 0}, {'r', 0, 0}, {'t', 7, 0}}},
		{"forget clears its own block", []op{{'m', 7, 0}, {'f', 7, 0}, {'t', 7, 0}}},
		{"forget of another block keeps the count", []op{{'m', 7, 0}, {'f', 8, 0}, {'t', 7, 1}}},
		{"a reset count restarts at 1", []op{{'m', 7, 0}, {'m', 7, 0}, {'r', 0, 0}, {'m', 7, 0}, {'t', 7, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m missCount
			for i, o := range tt.ops {
				switch o.do {
				case 'm':
					m.miss(o.id)
				case 'r':
					m.reset()
				case 'f':
					m.forget(o.id)
				case 't':
					if got := m.take(o.id); got != o.want {
						t.Fatalf("op %d: take(%d) = %d, want %d", i, o.id, got, o.want)
					}
				}
			}
		})
	}
}
