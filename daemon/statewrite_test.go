package daemon

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestStateWriterNewestWins: snapshots put while no write runs are
// coalesced into the newest; a flush with nothing new writes nothing.
func TestStateWriterNewestWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), StateFile)
	var w stateWriter
	w.put(path, []byte("1"))
	w.put(path, []byte("2"))
	if _, err := w.flush(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "2" {
		t.Fatalf("file %q after two snapshots, want the newest %q", b, "2")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := w.flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a flush with no new snapshot wrote the file again: %v", err)
	}
}

// TestStateWriterOrder: snapshots taken in order (under a lock, as
// d.mu orders them) by goroutines that each flush after their put: when
// a flush returns, the file holds that goroutine's snapshot or a newer
// one, never an older one; at the end it holds the newest.
func TestStateWriterOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), StateFile)
	var w stateWriter
	var mu sync.Mutex // d.mu
	seq := 0
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				mu.Lock()
				seq++
				mine := seq
				w.put(path, []byte(strconv.Itoa(mine)))
				mu.Unlock()
				if _, err := w.flush(); err != nil {
					errs <- err.Error()
					return
				}
				b, _ := os.ReadFile(path)
				if got, err := strconv.Atoi(string(b)); err != nil || got < mine {
					errs <- "after the flush of snapshot " + strconv.Itoa(mine) + " the file holds " + string(b)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if b, _ := os.ReadFile(path); string(b) != strconv.Itoa(seq) {
		t.Errorf("file %q at the end, want the newest snapshot %d", b, seq)
	}
}
