package api

import (
	"errors"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name, body, want string // want: substring of the error, "" for success
	}{
		{"ok", `{"pid": 1, "addr": 4096, "length": 8192}`, ""},
		{"ok trailing space", "{\"pid\": 1}\n  \n", ""},
		{"empty", ``, "empty body"},
		{"unknown field", `{"pid": 1, "colour": "red"}`, `unknown field "colour"`},
		{"wrong type", `{"pid": "one"}`, "field pid: want int, got JSON string"},
		{"negative unsigned", `{"addr": -1}`, "field addr: want uint64"},
		{"syntax", `{"pid": 1,,}`, "malformed JSON at byte"},
		{"truncated", `{"pid": 1`, "truncated"},
		{"two values", `{"pid": 1} {"pid": 2}`, "trailing data"},
		{"trailing garbage", `{"pid": 1} x`, "trailing data"},
		{"array", `[1,2]`, "want api.RegisterRequest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req RegisterRequest
			err := Decode(strings.NewReader(tt.body), &req)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Decode(%q) = %v, want success", tt.body, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Decode(%q) = %v, want error containing %q", tt.body, err, tt.want)
			}
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("Decode(%q) error %v does not wrap ErrBadRequest", tt.body, err)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"pid": 1, "addr": 4096, "length": 8192, "block_size": 4096, "pinned": [{"offset": 0, "length": 4096}]}`,
		`{"class": "think_complete", "think_complete": [{"offset": 0, "length": 1}]}`,
		`{"blocks": [1, 2, 3], "write": true}`,
		`{}`, `[]`, `null`, `{"pid": 1e99}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var reg RegisterRequest
		_ = Decode(strings.NewReader(string(b)), &reg)
		var up UpdateRequest
		if err := Decode(strings.NewReader(string(b)), &up); err != nil && !errors.Is(err, ErrBadRequest) {
			t.Fatalf("error %v does not wrap ErrBadRequest", err)
		}
		var h HintsRequest
		_ = Decode(strings.NewReader(string(b)), &h)
	})
}
