package daemon

import (
	"context"
	"sync"
)

// stateWriter writes snapshots of the registrations file outside d.mu.
// A snapshot is taken under d.mu (saveStateLocked: cheap, one entry a
// region), so snapshots are numbered in the order of the changes they
// follow. Writing one (a temp file, fsync, rename, fsync of the
// directory) takes milliseconds to seconds on a busy disk and is done
// without d.mu, one write at a time (write), always of the newest
// snapshot taken: a snapshot older than one written is never written, so
// an older state never overwrites a newer one. Snapshots taken while a
// write runs are coalesced: the next write takes the newest.
type stateWriter struct {
	mu      sync.Mutex // guards seq, next, nextSeq and path
	seq     uint64     // snapshots taken
	next    []byte     // the newest snapshot not yet being written; nil for none
	nextSeq uint64
	path    string

	write   sync.Mutex // held while writing; guards written
	written uint64     // the newest snapshot written (or tried)

	kick chan struct{} // saveLoop's wake-up (made by New; nil: no loop)
}

// put records snapshot b of the file at path, the newest, and wakes
// saveLoop.
func (w *stateWriter) put(path string, b []byte) {
	w.mu.Lock()
	w.seq++
	w.next, w.nextSeq, w.path = b, w.seq, path
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// flush writes the newest snapshot if no newer one is written. When it
// returns, every snapshot put before the call is written, or superseded
// by a newer one that is, or its write failed (the error).
func (w *stateWriter) flush() (path string, err error) {
	w.write.Lock()
	defer w.write.Unlock()
	w.mu.Lock()
	b, seq, path := w.next, w.nextSeq, w.path
	w.next = nil
	w.mu.Unlock()
	if b == nil || seq <= w.written {
		return path, nil
	}
	w.written = seq
	return path, writeFileAtomic(path, b)
}

// flushState writes the registrations file if a change is not yet
// written (stateWriter.flush); never call it with d.mu held. A failure
// is logged: the daemon runs on, and the next change tries again.
func (d *Daemon) flushState() {
	if path, err := d.saver.flush(); err != nil {
		d.log.Named("state").Warn("cannot save the registrations; a restart will lose them", "file", path,
			"error", err)
	}
}

// saveLoop writes the snapshots no API handler writes (regions the epoch
// loop drops) until ctx is done, then the last one.
func (d *Daemon) saveLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			d.flushState()
			return
		case <-d.saver.kick:
			d.flushState()
		}
	}
}
