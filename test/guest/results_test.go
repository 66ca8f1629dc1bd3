package guest

import (
	"errors"
	"strings"
	"testing"
)

func TestParseResults(t *testing.T) {
	console := strings.Join([]string{
		"[    0.000000] Linux version 6.12",
		"KVTIER-RESULT early 0 eA==", // before the begin marker: ignored
		BeginMarker,
		FormatResult("topology", 0, []byte(`{"nodes":2}`)),
		"[    3.1] some kernel line" + FormatResult("glued", 0, []byte("x")),
		FormatResult("empty", 3, nil),
		FormatResult("topology", 0, []byte(`{"nodes":3}`)) + "\r",
		EndMarker + " 0",
		"[    5.0] reboot: Power down",
	}, "\n")
	rs, err := ParseResults([]byte(console))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Steps) != 4 || rs.ExitCode != 0 {
		t.Fatalf("got %d steps, exit %d: %+v", len(rs.Steps), rs.ExitCode, rs.Steps)
	}
	var v struct{ Nodes int }
	res, ok := rs.Get("topology")
	if !ok || res.JSON(&v) != nil || v.Nodes != 3 || res.Line != 7 {
		t.Errorf("Get(topology) = %+v, %v; nodes %d (want the last one, 3, line 7)", res, ok, v.Nodes)
	}
	if res, _ := rs.Get("glued"); string(res.Output) != "x" {
		t.Errorf("glued output %q", res.Output)
	}
	if res, _ := rs.Get("empty"); res.RC != 3 || len(res.Output) != 0 {
		t.Errorf("empty = %+v", res)
	}
	if _, ok := rs.Get("early"); ok {
		t.Error("a result before the begin marker was kept")
	}
}

func TestParseResultsErrors(t *testing.T) {
	tests := []struct {
		name, console string
		want          error
	}{
		{"nothing", "kernel panic\n", ErrNoResults},
		{"no end", BeginMarker + "\n" + FormatResult("a", 0, nil) + "\n", ErrIncomplete},
		{"bad rc", BeginMarker + "\nKVTIER-RESULT a x\n" + EndMarker + " 0\n", ErrBadResult},
		{"bad base64", BeginMarker + "\nKVTIER-RESULT a 0 !!!\n" + EndMarker + " 0\n", ErrBadResult},
		{"fields", BeginMarker + "\nKVTIER-RESULT a 0 eA== more\n" + EndMarker + " 0\n", ErrBadResult},
		{"bad exit", BeginMarker + "\n" + EndMarker + " zero\n", ErrBadResult},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseResults([]byte(tt.console)); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestParseKernels(t *testing.T) {
	ks, err := ParseKernels([]byte("6.12\tlinux-image-6.12.117+deb12-amd64\t/c/vmlinuz-6.12\t/c/config\n6.1\tp\t/v\t/c\n"))
	if err != nil {
		t.Fatal(err)
	}
	if k, err := ks.Get("6.12"); err != nil || k.Vmlinuz != "/c/vmlinuz-6.12" {
		t.Errorf("Get(6.12) = %+v, %v", k, err)
	}
	if _, err := ks.Get("5.10"); !errors.Is(err, ErrNoKernel) {
		t.Errorf("Get(5.10): %v, want ErrNoKernel", err)
	}
	for _, bad := range []string{"", "6.12 only-spaces /v /c\n", "6.12\tp\t\t/c\n"} {
		if _, err := ParseKernels([]byte(bad)); err == nil {
			t.Errorf("ParseKernels(%q) succeeded", bad)
		}
	}
}

func FuzzParseResults(f *testing.F) {
	f.Add([]byte(BeginMarker + "\n" + FormatResult("a", 0, []byte("{}")) + "\n" + EndMarker + " 0\n"))
	f.Add([]byte("noise\n" + BeginMarker + "\nKVTIER-RESULT b -1\n" + EndMarker + " 7"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ParseResults(b)
		if err != nil {
			return
		}
		for _, s := range rs.Steps {
			again, err := ParseResults([]byte(BeginMarker + "\n" + FormatResult(s.Name, s.RC, s.Output) + "\n" + EndMarker + " 0\n"))
			if err != nil || len(again.Steps) != 1 || string(again.Steps[0].Output) != string(s.Output) {
				t.Fatalf("step %+v does not round-trip: %v", s, err)
			}
		}
	})
}

func TestParseResultLine(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
		bad  bool
		name string
		out  string
	}{
		{"[ 1.0] kernel says hello", false, false, "", ""},
		{"junk" + FormatResult("step", 0, []byte("hi")) + "\r", true, false, "step", "hi"},
		{FormatResult("empty", 3, nil), true, false, "empty", ""},
		{ResultPrefix + " broken", false, true, "", ""},
	} {
		r, ok, err := ParseResultLine(c.line)
		if ok != c.ok || (err != nil) != c.bad {
			t.Errorf("ParseResultLine(%q) = ok %v, err %v; want ok %v, error %v", c.line, ok, err, c.ok, c.bad)
			continue
		}
		if ok && (r.Name != c.name || string(r.Output) != c.out) {
			t.Errorf("ParseResultLine(%q) = %s %q, want %s %q", c.line, r.Name, r.Output, c.name, c.out)
		}
	}
}
