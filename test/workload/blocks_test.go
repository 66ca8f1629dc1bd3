package main

import (
	"slices"
	"testing"
)

func TestParseBlocks(t *testing.T) {
	for _, c := range []struct {
		spec   string
		tenant string
		blocks []int
		bad    bool
	}{
		{"3", "", []int{3}, false},
		{"0-3,7", "", []int{0, 1, 2, 3, 7}, false},
		{"b:1-2", "b", []int{1, 2}, false},
		{"", "", nil, true},
		{"3-1", "", nil, true},
		{"x", "", nil, true},
		{"-1", "", nil, true},
	} {
		tenant, blocks, err := parseBlocks(c.spec)
		if (err != nil) != c.bad {
			t.Errorf("parseBlocks(%q): error %v, want error %v", c.spec, err, c.bad)
			continue
		}
		if !c.bad && (tenant != c.tenant || !slices.Equal(blocks, c.blocks)) {
			t.Errorf("parseBlocks(%q) = %q %v, want %q %v", c.spec, tenant, blocks, c.tenant, c.blocks)
		}
	}
}
