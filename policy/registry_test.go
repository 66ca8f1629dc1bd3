package policy

import (
	"errors"
	"testing"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{in: "lru", want: "lru"},
		{in: " regret_aware:weight=12,horizon=64 ", want: "regret_aware:horizon=64,weight=12"},
		{in: "x:a=1", want: "x:a=1"},
		{in: "", wantErr: true},
		{in: ":a=1", wantErr: true},
		{in: "x:a", wantErr: true},
		{in: "x:a=", wantErr: true},
		{in: "x:a=1,a=2", wantErr: true},
		{in: "x:a=1,,b=2", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sp, err := ParseSpec(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrBadParam) {
					t.Fatalf("ParseSpec(%q) error = %v, want ErrBadParam", tt.in, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := sp.String(); got != tt.want {
				t.Fatalf("ParseSpec(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New("no_such_policy", Env{}); !errors.Is(err, ErrUnknownPolicy) {
		t.Fatalf("unknown policy: err = %v", err)
	}
	for _, spec := range []string{"lru:bogus=1", "regret_tiered:memory=10000000", "regret_tiered:reuse=65537",
		"regret_tiered:reuse=0"} {
		if _, err := New(spec, Env{}); !errors.Is(err, ErrBadParam) {
			t.Errorf("%s: err = %v, want ErrBadParam", spec, err)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"lru", "regret_aware:weight=12,horizon=64", "a:b=c,d=e", ":", "x:=,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			return
		}
		again, err := ParseSpec(sp.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", sp.String(), s, err)
		}
		if again.String() != sp.String() {
			t.Fatalf("round trip: %q != %q", again.String(), sp.String())
		}
	})
}
