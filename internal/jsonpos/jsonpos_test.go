package jsonpos

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestPosition(t *testing.T) {
	type grid struct {
		Name  string  `json:"name"`
		Seeds []int64 `json:"seeds"`
	}
	tests := []struct {
		name      string
		in        string
		line, col int
	}{
		{"syntax error", "{\n  \"name\": \"g\",\n}", 3, 1},
		{"type error", "{\n  \"name\": \"g\",\n  \"seeds\": \"7\"\n}", 3, 15},
		{"first byte", "x", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g grid
			err := json.Unmarshal([]byte(tt.in), &g)
			if err == nil {
				t.Fatal("no error")
			}
			line, col := LineCol([]byte(tt.in), Offset(err, 0))
			if line != tt.line || col != tt.col {
				t.Errorf("%v: line %d col %d, want %d:%d", err, line, col, tt.line, tt.col)
			}
		})
	}
	if got := Offset(errors.New("other"), 7); got != 7 {
		t.Errorf("Offset of another error = %d, want the default 7", got)
	}
	if line, col := LineCol([]byte("ab\ncd"), 99); line != 2 || col != 3 {
		t.Errorf("LineCol past the end = %d:%d, want 2:3", line, col)
	}
}

func TestTrailing(t *testing.T) {
	tests := []struct {
		in        string
		trailing  bool
		line, col int
	}{
		{`{"a": 1}`, false, 0, 0},
		{"{\"a\": 1}\n\t \n", false, 0, 0},
		{`{"a": 1}}`, true, 1, 9},
		{`{"a": 1}]`, true, 1, 9},
		{"{\"a\": 1}\n  {}", true, 2, 3},
		{`{"a": 1} x`, true, 1, 10},
	}
	for _, tt := range tests {
		dec := json.NewDecoder(strings.NewReader(tt.in))
		var v map[string]int
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		line, col, trailing := Trailing(dec, []byte(tt.in))
		if trailing != tt.trailing || line != tt.line || col != tt.col {
			t.Errorf("Trailing(%q) = %d:%d %v, want %d:%d %v", tt.in, line, col, trailing, tt.line, tt.col, tt.trailing)
		}
	}
}
