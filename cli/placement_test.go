package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestParseAddrRange(t *testing.T) {
	tests := []struct {
		in   string
		want addrRange
		bad  bool
	}{
		{"1000-2000", addrRange{0x1000, 0x2000}, false},
		{"0x7f0000000000-0x7f0000200000", addrRange{0x7f0000000000, 0x7f0000200000}, false},
		{"2000-1000", addrRange{}, true},
		{"2000", addrRange{}, true},
		{"zz-10", addrRange{}, true},
	}
	for _, tt := range tests {
		got, err := parseAddrRange(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseAddrRange(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

func TestPlacementCommand(t *testing.T) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	pid := child.Process.Pid
	var out, errb bytes.Buffer
	if code := run([]string{"placement", "--pid", fmt.Sprint(pid), "--json"}, &out, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep placementReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var stack *addrRange
	for _, r := range rep.Regions {
		if r.Name == "[stack]" {
			stack = &addrRange{r.Start, r.End}
			// The huge-page figures come from smaps and must be the
			// stack's own: one mapping, its size, resident pages.
			if h := r.Huge; h == nil || h.Mappings != 1 || h.Size != uint64(r.End-r.Start) || h.Rss == 0 {
				t.Errorf("stack %#x-%#x huge-page figures %+v", r.Start, r.End, h)
			}
		}
	}
	present := 0
	for _, c := range rep.Total.PerNode {
		present += c
	}
	if rep.Comm != "sleep" || stack == nil || present == 0 || present+rep.Total.NotPresent > rep.Total.Pages {
		t.Fatalf("report %+v", rep)
	}
	out.Reset()
	arg := fmt.Sprintf("%x-%x", stack.Start, stack.End)
	if code := run([]string{"placement", "--pid", fmt.Sprint(pid), "--range", arg}, &out, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "[stack]") || strings.Count(out.String(), "\n0x") != 1 {
		t.Errorf("range output:\n%s", out.String())
	}
}

func TestPlacementCommandErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"placement"}, ExitUsage, "--pid is required"},
		{[]string{"placement", "--pid", "1", "--range", "9-3"}, ExitUsage, "not above start"},
		{[]string{"placement", "--pid", fmt.Sprint(os.Getpid()), "--range", "1000-2000"}, ExitError, "no mapping"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := run(tt.args, &out, &errb); code != tt.code || !strings.Contains(errb.String(), tt.msg) {
			t.Errorf("%v: exit %d %q, want %d %q", tt.args, code, errb.String(), tt.code, tt.msg)
		}
	}
}

func TestCountsStrings(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{perNodeString(nil), "-"},
		{perNodeString(map[int]int{10: 1, 2: 30, 0: 7}), "node0=7,node2=30,node10=1"},
		{errnoString(map[string]int{}), "-"},
		{errnoString(map[string]int{"EFAULT": 2, "EBUSY": 5}), "EBUSY=5,EFAULT=2"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
