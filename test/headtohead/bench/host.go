package bench

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// otherGuests counts the QEMU processes running on the host that are not
// children of this process: another guest shares the 2 cores and skews
// every emulated time of the run, so the run says when it happened.
func otherGuests() int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := strconv.Itoa(os.Getpid())
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < open || !strings.HasPrefix(s[open+1:closing], "qemu-system") {
			continue
		}
		if f := strings.Fields(s[closing+1:]); len(f) > 1 && f[1] != self {
			n++
		}
	}
	return n
}

// watchGuests polls otherGuests every few seconds until stop is closed and
// then sends the most it saw.
func watchGuests(stop <-chan struct{}) <-chan int {
	out := make(chan int, 1)
	go func() {
		most := otherGuests()
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				out <- max(most, otherGuests())
				return
			case <-tick.C:
				most = max(most, otherGuests())
			}
		}
	}()
	return out
}
