package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/jsonpos"
)

// StateFile is the name of the registrations file in the state directory.
const StateFile = "registrations.json"

// stateVersion is the version of the registrations file's format.
const stateVersion = 1

// Sentinels of the state file.
var (
	// errCorruptState: the registrations file cannot be parsed.
	errCorruptState = errors.New("corrupt state file")
)

// savedRegion is one API registration in the state file: the request that
// registers it again with its current settings, and the identity of its
// process, checked when the daemon comes back.
type savedRegion struct {
	Request api.RegisterRequest `json:"request"`
	// RefCount is the region's refcount, 0 included (the request's 0
	// means the default).
	RefCount  int32  `json:"refcount"`
	StartTime uint64 `json:"start_time"` // the process's /proc/PID/stat field 22
	UID       uint32 `json:"uid"`        // the process's real uid
	Owner     uint32 `json:"owner"`      // uid of the caller that registered it
	// ID is the region's ID, kept across the restart (the engine holds it
	// for hints and changes); 0 in files of older daemons: a new ID.
	ID uint64 `json:"id,omitempty"`
}

// stateFile is the registrations file's content.
type stateFile struct {
	Version int           `json:"version"`
	Regions []savedRegion `json:"regions"`
}

// parseState parses a registrations file. Errors wrap errCorruptState and
// say where in b the problem is (line and column).
func parseState(b []byte) (stateFile, error) {
	var st stateFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return st, corruptAt(b, jsonpos.Offset(err, dec.InputOffset()), err)
	}
	if line, col, ok := jsonpos.Trailing(dec, b); ok {
		return st, fmt.Errorf("%w: line %d column %d: data after the top-level object", errCorruptState, line, col)
	}
	if st.Version != stateVersion {
		return st, fmt.Errorf("%w: version %d, want %d", errCorruptState, st.Version, stateVersion)
	}
	for i, r := range st.Regions {
		if r.Request.PID <= 0 || r.StartTime == 0 || r.RefCount < 0 {
			return st, fmt.Errorf("%w: regions[%d]: want a pid > 0, a start_time and a refcount >= 0",
				errCorruptState, i)
		}
	}
	return st, nil
}

// corruptAt wraps err in errCorruptState with the line and column of byte
// offset off of b.
func corruptAt(b []byte, off int64, err error) error {
	off = max(0, min(off, int64(len(b))))
	line, col := jsonpos.LineCol(b, off)
	return fmt.Errorf("%w: line %d column %d (byte %d): %v", errCorruptState, line, col, off, err)
}

// writeFileAtomic writes b to path: a temp file in the same directory,
// fsynced, renamed over path, and the directory fsynced.
func writeFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if df, err := os.Open(dir); err == nil {
		_ = df.Sync()
		_ = df.Close()
	}
	return nil
}

// statePath is the registrations file of the running config.
func (d *Daemon) statePath() string { return filepath.Join(d.cfg.StateDir, StateFile) }

// savedLocked returns the API registrations as the state file holds them.
// Regions of rules are left out: the rules find their processes again.
func (d *Daemon) savedLocked() stateFile {
	st := stateFile{Version: stateVersion, Regions: []savedRegion{}}
	for _, r := range d.regions {
		if r.source != "api" || r.adding {
			continue
		}
		req := api.RegisterRequest{PID: r.pid(), Addr: r.addr, Length: r.length, BlockSize: r.blockSize,
			Tenant: r.tenant, Class: r.class.String(), Priority: PriorityName(r.priority),
			RefCount: r.refcount, Pinned: append([]api.Range{}, r.pinned...), Name: r.name}
		st.Regions = append(st.Regions, savedRegion{Request: req, RefCount: r.refcount,
			StartTime: r.proc.StartTime(), UID: r.uid, Owner: r.owner, ID: r.id})
	}
	return st
}

// saveStateLocked takes a snapshot of the registrations after a change;
// the file is written without d.mu (statewrite.go): by flushState, which
// the API's handlers call before they answer, or else by saveLoop.
func (d *Daemon) saveStateLocked() {
	if d.restoring || d.closed {
		return
	}
	b, err := json.MarshalIndent(d.savedLocked(), "", " ")
	if err != nil {
		d.log.Named("state").Warn("cannot save the registrations; a restart will lose them", "file", d.statePath(),
			"error", err)
		return
	}
	d.saver.put(d.statePath(), append(b, '\n'))
}
