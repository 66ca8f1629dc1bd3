package daemon

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// maxRecordTouches caps the records written for one sampled count, as the
// planner caps policy touches.
const maxRecordTouches = 8

// recorder writes what the daemon samples as a kvtier JSONL trace
// (policy/trace), which `kvtier sim --trace` replays with any policy.
//
// # Recorded format
//
// One trace.Record a line, in the daemon's order, times never going back:
//
//   - access: a sampled access (a sampler's count drained at an epoch, or
//     an engine's hint through the API). A count c becomes min(c, 8)
//     records with the same time, as the planner caps the policy touches
//     of one count. Every access carries the block's full metadata, so a
//     replay that starts mid-run knows each block at its first access.
//   - update: the API changed a block's metadata (class, think_complete
//     ranges, priority, refcount, pinned ranges); written once per block
//     whose metadata changed, with the new metadata.
//   - free: the block's region was unregistered or its process exited;
//     written only for blocks this recording has accessed. Stopping the
//     daemon frees nothing: its regions live on in their processes.
//
// block is the daemon's block ID, region << 32 | index; time is
// nanoseconds since the daemon started (accesses drained in one epoch share
// the epoch's time); size is the block's length in bytes; tenant is the
// daemon's tenant number (0 is the unnamed tenant, then tenants in order of
// first use); pos is the block's index in its region and seq_len the
// region's block count.
//
// Moves are not recorded. A replay makes its own placement decisions with
// the policy under test, so the daemon's moves are an output of the
// policy that ran, not an input of the one being judged; what a replay
// needs is the sampled accesses and the metadata the policy saw, which is
// what the trace holds. The daemon's moves are in the event stream
// (migration events) and the metrics.
type recorder struct {
	path    string
	f       *os.File
	w       *trace.JSONLWriter
	records uint64
	err     error
	count   func()
	seen    map[policy.BlockID]struct{} // blocks accessed in this recording
}

// newRecorder records to f, the file at path.
func newRecorder(path string, f *os.File, count func()) *recorder {
	return &recorder{path: path, f: f, w: trace.NewJSONLWriter(f), count: count,
		seen: map[policy.BlockID]struct{}{}}
}

// openConfigTrace opens the config's record path (root's choice: the file
// is truncated, so that a restarted daemon records afresh).
func openConfigTrace(path string) (*os.File, error) {
	if !filepath.IsAbs(path) {
		return nil, badRequest("trace path %q: want an absolute path", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return nil, badRequest("trace path %q: %v", path, err)
	}
	return f, nil
}

func (r *recorder) write(rec trace.Record) {
	if r.err != nil {
		return
	}
	if r.err = r.w.Write(rec); r.err == nil {
		r.records++
		r.count()
	}
}

// access records count sampled accesses (at most maxRecordTouches).
func (r *recorder) access(reg *region, i int, count uint64, now policy.Time) {
	id, m := reg.idOf(i), reg.metaOf(i)
	r.seen[id] = struct{}{}
	for range min(count, maxRecordTouches) {
		r.write(trace.Record{Op: trace.OpAccess, Time: now, Block: id, Meta: m})
	}
}

// knows reports whether this recording has recorded an access of id (the
// replay knows the block).
func (r *recorder) knows(id policy.BlockID) bool {
	_, ok := r.seen[id]
	return ok
}

// updated records block i's new metadata.
func (r *recorder) updated(reg *region, i int, now policy.Time) {
	r.write(trace.Record{Op: trace.OpUpdate, Time: now, Block: reg.idOf(i), Meta: reg.metaOf(i)})
}

// freed records that a region's blocks are gone, those this recording
// has accessed.
func (r *recorder) freed(reg *region, now policy.Time) {
	for i := range reg.blocks.len() {
		id := reg.idOf(i)
		if _, ok := r.seen[id]; !ok {
			continue
		}
		delete(r.seen, id)
		r.write(trace.Record{Op: trace.OpFree, Time: now, Block: id, Meta: reg.metaOf(i)})
	}
}

// epoch flushes at the end of an epoch.
func (r *recorder) epoch() {
	if r.err == nil {
		r.err = r.w.Flush()
	}
}

func (r *recorder) close() error {
	err := r.w.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if r.err != nil {
		return fmt.Errorf("recording trace %s: %w", r.path, r.err)
	}
	return err
}

func (d *Daemon) traceStatusLocked() api.TraceStatus {
	if d.rec == nil {
		return api.TraceStatus{}
	}
	return api.TraceStatus{Recording: true, Path: d.rec.path, Records: d.rec.records}
}

// StartTrace starts recording to path, an absolute path the daemon's
// operator chose (the config's record block); an existing file is
// truncated. The API records under the record directory only
// (startTraceIn).
func (d *Daemon) StartTrace(path string) (api.TraceStatus, error) {
	return d.startTrace(path, func() (*os.File, error) { return openConfigTrace(path) })
}

// startTrace starts recording to the file open returns, named path.
func (d *Daemon) startTrace(path string, open func() (*os.File, error)) (api.TraceStatus, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rec != nil {
		return api.TraceStatus{}, &reqError{http.StatusConflict, "already recording to " + d.rec.path}
	}
	f, err := open()
	if err != nil {
		return api.TraceStatus{}, err
	}
	d.rec = newRecorder(path, f, d.metrics.traceRecords.Inc)
	d.log.Named("trace").Info("recording started", "path", path)
	return d.traceStatusLocked(), nil
}

// StopTrace stops recording and returns the final state.
func (d *Daemon) StopTrace() (api.TraceStatus, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rec == nil {
		return api.TraceStatus{}, &reqError{http.StatusConflict, "not recording"}
	}
	st := d.traceStatusLocked()
	st.Recording = false
	err := d.rec.close()
	d.rec = nil
	d.log.Named("trace").Info("recording stopped", "path", st.Path, "records", st.Records)
	return st, err
}

func (d *Daemon) handleTrace(w http.ResponseWriter, _ *http.Request) {
	d.mu.Lock()
	st := d.traceStatusLocked()
	d.mu.Unlock()
	writeJSON(w, http.StatusOK, st)
}

func (d *Daemon) handleTraceStart(w http.ResponseWriter, r *http.Request) {
	c, err := callerOf(r)
	if err == nil {
		err = requireRoot(c, "recording a trace")
	}
	if err != nil {
		writeError(w, err)
		return
	}
	var req api.TraceRequest
	if err := d.decode(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	st, err := d.startTraceIn(d.Config().Record.Dir, req.Path)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (d *Daemon) handleTraceStop(w http.ResponseWriter, r *http.Request) {
	c, err := callerOf(r)
	if err == nil {
		err = requireRoot(c, "stopping a trace")
	}
	if err != nil {
		writeError(w, err)
		return
	}
	st, err := d.StopTrace()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
