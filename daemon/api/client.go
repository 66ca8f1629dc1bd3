package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Client errors. Test with errors.Is.
var (
	// ErrUnreachable: nothing listens on the socket (missing or refused).
	ErrUnreachable = errors.New("daemon not reachable")
	// ErrPermission: the socket exists but the caller may not connect.
	ErrPermission = errors.New("permission denied on the daemon socket")
)

// StatusError is a 4xx or 5xx answer of the daemon.
type StatusError struct {
	Code    int    // HTTP status
	Message string // the daemon's error message
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("daemon answered %d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

// Client talks to the daemon over its unix socket. It is safe for
// concurrent use.
type Client struct {
	socket string
	hc     *http.Client
}

// NewClient returns a client for the socket at path ("" is DefaultSocket).
func NewClient(path string) *Client {
	if path == "" {
		path = DefaultSocket
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		MaxIdleConns:    4,
		IdleConnTimeout: 30 * time.Second,
	}
	return &Client{socket: path, hc: &http.Client{Transport: tr}}
}

// Socket returns the socket path the client dials.
func (c *Client) Socket() string { return c.socket }

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// do sends a request with an optional JSON body and decodes a JSON answer
// into out (nil to discard).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	resp, err := c.send(ctx, method, path, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decoding answer to %s %s: %w", method, path, err)
	}
	return nil
}

func (c *Client) send(ctx context.Context, method, path string, in any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encoding %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://kvtier/"+Version+path, body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.classify(err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		var e Error
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(raw, &e) != nil || e.Error == "" {
			e.Error = string(bytes.TrimSpace(raw))
		}
		return nil, &StatusError{Code: resp.StatusCode, Message: e.Error}
	}
	return resp, nil
}

// classify wraps dial errors with ErrUnreachable or ErrPermission.
func (c *Client) classify(err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w at %s (is `kvtier daemon` running?): %w", ErrUnreachable, c.socket, err)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("%w %s (run as root or join the socket's group): %w", ErrPermission, c.socket, err)
	}
	return fmt.Errorf("talking to the daemon at %s: %w", c.socket, err)
}

// Register registers a region and returns it as tracked.
func (c *Client) Register(ctx context.Context, req RegisterRequest) (Region, error) {
	var r Region
	err := c.do(ctx, http.MethodPost, "/regions", req, &r)
	return r, err
}

// Update changes a region.
func (c *Client) Update(ctx context.Context, id uint64, req UpdateRequest) (Region, error) {
	var r Region
	err := c.do(ctx, http.MethodPatch, "/regions/"+strconv.FormatUint(id, 10), req, &r)
	return r, err
}

// Unregister drops a region.
func (c *Client) Unregister(ctx context.Context, id uint64) error {
	return c.do(ctx, http.MethodDelete, "/regions/"+strconv.FormatUint(id, 10), nil, nil)
}

// Regions lists every region.
func (c *Client) Regions(ctx context.Context) ([]Region, error) {
	var rs []Region
	err := c.do(ctx, http.MethodGet, "/regions", nil, &rs)
	return rs, err
}

// Region returns one region.
func (c *Client) Region(ctx context.Context, id uint64) (Region, error) {
	var r Region
	err := c.do(ctx, http.MethodGet, "/regions/"+strconv.FormatUint(id, 10), nil, &r)
	return r, err
}

// Hints reports accesses to blocks of a region.
func (c *Client) Hints(ctx context.Context, id uint64, req HintsRequest) (HintsResponse, error) {
	var r HintsResponse
	err := c.do(ctx, http.MethodPost, "/regions/"+strconv.FormatUint(id, 10)+"/hints", req, &r)
	return r, err
}

// Status returns the daemon's status.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	err := c.do(ctx, http.MethodGet, "/status", nil, &s)
	return s, err
}

// Topology returns the NUMA topology.
func (c *Client) Topology(ctx context.Context) (Topology, error) {
	var t Topology
	err := c.do(ctx, http.MethodGet, "/topology", nil, &t)
	return t, err
}

// Policy returns the policy and budgets.
func (c *Client) Policy(ctx context.Context) (PolicyInfo, error) {
	var p PolicyInfo
	err := c.do(ctx, http.MethodGet, "/policy", nil, &p)
	return p, err
}

// Trace returns the trace recording state.
func (c *Client) Trace(ctx context.Context) (TraceStatus, error) {
	var t TraceStatus
	err := c.do(ctx, http.MethodGet, "/trace", nil, &t)
	return t, err
}

// StartTrace starts recording to path (a path the daemon can write).
func (c *Client) StartTrace(ctx context.Context, path string) (TraceStatus, error) {
	var t TraceStatus
	err := c.do(ctx, http.MethodPost, "/trace", TraceRequest{Path: path}, &t)
	return t, err
}

// StopTrace stops recording and returns the final state.
func (c *Client) StopTrace(ctx context.Context) (TraceStatus, error) {
	var t TraceStatus
	err := c.do(ctx, http.MethodDelete, "/trace", nil, &t)
	return t, err
}

// Events follows the event stream, calling fn for each event until ctx is
// done, the daemon closes the stream or fn returns an error (which Events
// returns). A cancelled ctx returns nil.
func (c *Client) Events(ctx context.Context, fn func(Event) error) error {
	resp, err := c.send(ctx, http.MethodGet, "/events", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("decoding event: %w", err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return sc.Err()
}
