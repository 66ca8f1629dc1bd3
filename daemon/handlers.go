package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kvtier/kvtier/daemon/api"
)

// routes is the /v1 API.
func (d *Daemon) routes() http.Handler {
	mux := http.NewServeMux()
	v := "/" + api.Version
	mux.HandleFunc("POST "+v+"/regions", d.handleRegister)
	mux.HandleFunc("GET "+v+"/regions", d.handleRegions)
	mux.HandleFunc("GET "+v+"/regions/{id}", d.handleRegion)
	mux.HandleFunc("PATCH "+v+"/regions/{id}", d.handleUpdate)
	mux.HandleFunc("DELETE "+v+"/regions/{id}", d.handleUnregister)
	mux.HandleFunc("POST "+v+"/regions/{id}/hints", d.handleHints)
	mux.HandleFunc("GET "+v+"/regions/{id}/placement", d.handlePlacement)
	mux.HandleFunc("GET "+v+"/placement", d.handlePlacements)
	mux.HandleFunc("GET "+v+"/status", d.handleStatus)
	mux.HandleFunc("GET "+v+"/topology", d.handleTopology)
	mux.HandleFunc("GET "+v+"/policy", d.handlePolicy)
	mux.HandleFunc("GET "+v+"/events", d.handleEvents)
	mux.HandleFunc("GET "+v+"/trace", d.handleTrace)
	mux.HandleFunc("POST "+v+"/trace", d.handleTraceStart)
	mux.HandleFunc("DELETE "+v+"/trace", d.handleTraceStop)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &reqError{http.StatusNotFound, fmt.Sprintf("no such endpoint %s %s (the API is under /%s)",
			r.Method, r.URL.Path, api.Version)})
	})
	return d.recoverer(mux)
}

// recoverer turns a panic in a handler into a 500 and a log line: a bad
// request never takes the daemon down.
func (d *Daemon) recoverer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				d.log.Named("api").Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v)
				writeError(w, fmt.Errorf("internal error handling %s %s", r.Method, r.URL.Path))
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// decode reads a JSON body of at most api.max_body bytes into v.
func (d *Daemon) decode(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, d.Config().API.MaxBody)
	if err := api.Decode(r.Body, v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &reqError{http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", mbe.Limit)}
		}
		return &reqError{http.StatusBadRequest, err.Error()}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var re *reqError
	if errors.As(err, &re) {
		code = re.code
	}
	writeJSON(w, code, api.Error{Error: err.Error()})
}

// regionID parses the {id} path value.
func regionID(r *http.Request) (uint64, error) {
	s := r.PathValue("id")
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 {
		return 0, badRequest("region id %q: want a positive integer", s)
	}
	return id, nil
}

func (d *Daemon) handleRegister(w http.ResponseWriter, r *http.Request) {
	var req api.RegisterRequest
	if err := d.decode(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	spec, err := specFromRequest(req)
	if err != nil {
		writeError(w, err)
		return
	}
	reg, err := d.addRegion(spec)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, reg)
}

func (d *Daemon) handleRegions(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, d.regionViews(0))
}

func (d *Daemon) handleRegion(w http.ResponseWriter, r *http.Request) {
	id, err := regionID(r)
	if err == nil {
		var v api.Region
		if v, err = d.regionView(id); err == nil {
			writeJSON(w, http.StatusOK, v)
			return
		}
	}
	writeError(w, err)
}

func (d *Daemon) handleUpdate(w http.ResponseWriter, r *http.Request) {
	id, err := regionID(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var req api.UpdateRequest
	if err := d.decode(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	v, err := d.updateRegion(id, req)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (d *Daemon) handleUnregister(w http.ResponseWriter, r *http.Request) {
	id, err := regionID(r)
	if err == nil {
		err = d.removeRegion(id)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (d *Daemon) handleHints(w http.ResponseWriter, r *http.Request) {
	id, err := regionID(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var req api.HintsRequest
	if err := d.decode(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	n, err := d.hints(id, req)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.HintsResponse{Accepted: n})
}

// hints records engine-reported accesses.
func (d *Daemon) hints(id uint64, req api.HintsRequest) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	reg, ok := d.regions[id]
	if !ok {
		return 0, notFound("region %d: no such region", id)
	}
	for i, b := range req.Blocks {
		if b >= uint64(len(reg.blocks)) {
			return 0, badRequest("blocks[%d] = %d: region %d has %d blocks", i, b, id, len(reg.blocks))
		}
	}
	now := d.now()
	for _, b := range req.Blocks {
		d.accessLocked(id, int(b), 1, now, nil)
	}
	d.metrics.hints.Add(float64(len(req.Blocks)))
	return len(req.Blocks), nil
}
