package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy/plan"
)

// routes is the /v1 API. A known path with a method it does not take is
// a 405 with an Allow header; an unknown path is a 404.
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
	return d.recoverer(notAllowed(mux))
}

// apiMethods are the methods the API's routes use.
var apiMethods = []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete}

// notAllowed answers what mux has no route for: 405 with an Allow header
// when the path is known under other methods, else 404; both with a JSON
// error.
func notAllowed(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		var allow []string
		for _, m := range apiMethods {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) == 0 {
			writeError(w, notFound("no such endpoint %s %s (the API is under /%s)", r.Method, r.URL.Path, api.Version))
			return
		}
		if slices.Contains(allow, http.MethodGet) {
			allow = append(allow, http.MethodHead)
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, &reqError{http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s; allowed: %s",
			r.Method, r.URL.Path, strings.Join(allow, ", "))})
	})
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
	c, err := callerOf(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var req api.RegisterRequest
	if err := d.decode(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	c, release := withPeer(r, c)
	defer release()
	if req.PID, err = d.registerPID(c, req.PID); err != nil {
		writeError(w, err)
		return
	}
	spec, err := specFromRequest(req, d.Config().API.Limits)
	if err != nil {
		writeError(w, err)
		return
	}
	reg, err := d.addRegionAs(c, spec)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, reg)
}

func (d *Daemon) handleRegions(w http.ResponseWriter, r *http.Request) {
	c, err := callerOf(r)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, d.regionViews(c, 0))
}

// callerAndID returns the request's caller and its {id} path value.
func callerAndID(r *http.Request) (caller, uint64, error) {
	c, err := callerOf(r)
	if err != nil {
		return c, 0, err
	}
	id, err := regionID(r)
	return c, id, err
}

func (d *Daemon) handleRegion(w http.ResponseWriter, r *http.Request) {
	c, id, err := callerAndID(r)
	if err == nil {
		var v api.Region
		if v, err = d.regionView(c, id); err == nil {
			writeJSON(w, http.StatusOK, v)
			return
		}
	}
	writeError(w, err)
}

func (d *Daemon) handleUpdate(w http.ResponseWriter, r *http.Request) {
	c, id, err := callerAndID(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var req api.UpdateRequest
	if err := d.decode(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	v, err := d.updateRegionAs(c, id, req)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (d *Daemon) handleUnregister(w http.ResponseWriter, r *http.Request) {
	c, id, err := callerAndID(r)
	if err == nil {
		err = d.removeRegionAs(c, id)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (d *Daemon) handleHints(w http.ResponseWriter, r *http.Request) {
	c, id, err := callerAndID(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var req api.HintsRequest
	if err := d.decode(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	n, err := d.hints(c, id, req)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.HintsResponse{Accepted: n})
}

// hintObservation is one hinted read of a block.
var hintObservation = plan.Observation{Count: 1, Source: plan.SourceHint}

// hints records engine-reported accesses.
func (d *Daemon) hints(c caller, id uint64, req api.HintsRequest) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	reg, err := d.regionFor(c, id)
	if err != nil {
		return 0, err
	}
	for i, b := range req.Blocks {
		if b >= uint64(reg.blocks.len()) {
			return 0, badRequest("blocks[%d] = %d: region %d has %d blocks", i, b, id, reg.blocks.len())
		}
	}
	now := d.now()
	// Every hint is a read: a block listed twice, or hinted again by a
	// later request of the same epoch, shows reuse.
	for _, b := range req.Blocks {
		d.accessLocked(id, int(b), hintObservation, now, nil)
	}
	d.metrics.hints.Add(float64(len(req.Blocks)))
	return len(req.Blocks), nil
}
