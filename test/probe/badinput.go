package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// rawRequest is one hand-made API request and what the daemon answered.
type rawRequest struct {
	Name   string `json:"name"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// BodyBytes is the size of the body sent (bodies can be large).
	BodyBytes int    `json:"body_bytes"`
	Status    int    `json:"status"`
	Reply     string `json:"reply"`
	Err       string `json:"err,omitempty"`
}

func unixClient(socket string) *http.Client {
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}}
}

// badInput sends the malformed requests of scenario 6 to the daemon at
// socket. pid, addr and length describe a live arena of the workload
// (registered as region id), so each request is wrong in one way only.
func badInput(socket string, wi *workloadInfo) ([]rawRequest, error) {
	if len(wi.Arenas) == 0 || wi.Arenas[0].RegionID == 0 {
		return nil, fmt.Errorf("bad input: the workload has no registered arena")
	}
	a := wi.Arenas[0]
	pid := wi.PID
	valid := func(extra string) string {
		return fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":%d,"tenant":"x"%s}`,
			pid, a.Addr, a.Length, a.BlockSize, extra)
	}
	big := `{"pid":1,"name":"` + strings.Repeat("x", 2<<20) + `"}`
	reqs := []struct{ name, method, path, body string }{
		{"wrong-type", "POST", "/v1/regions", fmt.Sprintf(`{"pid":"%d","addr":%d,"length":%d}`, pid, a.Addr, a.Length)},
		{"unknown-field", "POST", "/v1/regions", valid(`,"colour":"blue"`)},
		{"malformed-json", "POST", "/v1/regions", `{"pid":` + fmt.Sprint(pid) + `,`},
		{"trailing-data", "POST", "/v1/regions", valid("") + `{}`},
		{"empty-body", "POST", "/v1/regions", ``},
		{"oversized-body", "POST", "/v1/regions", big},
		{"unmapped-range", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":%d}`,
			pid, 0x10000, a.BlockSize*4, a.BlockSize)},
		{"no-such-pid", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":%d}`,
			4000000, a.Addr, a.Length, a.BlockSize)},
		{"length-not-pages", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":%d}`,
			pid, a.Addr, a.BlockSize+1, a.BlockSize)},
		{"bad-block-size", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":5000}`,
			pid, a.Addr, a.Length)},
		{"bad-class", "POST", "/v1/regions", valid(`,"class":"lukewarm"`)},
		{"negative-pid", "POST", "/v1/regions", fmt.Sprintf(`{"pid":-5,"addr":%d,"length":%d}`, a.Addr, a.Length)},
		{"update-bad-class", "PATCH", fmt.Sprintf("/v1/regions/%d", a.RegionID), `{"class":"lukewarm"}`},
		{"update-unknown-field", "PATCH", fmt.Sprintf("/v1/regions/%d", a.RegionID), `{"klass":"think_complete"}`},
		{"hints-out-of-range", "POST", fmt.Sprintf("/v1/regions/%d/hints", a.RegionID), fmt.Sprintf(`{"blocks":[%d]}`, a.Blocks+1000)},
		{"hints-wrong-type", "POST", fmt.Sprintf("/v1/regions/%d/hints", a.RegionID), `{"blocks":"all"}`},
		{"no-such-region", "POST", "/v1/regions/999999/hints", `{"blocks":[0]}`},
		{"bad-region-id", "GET", "/v1/regions/abc", ``},
		{"no-such-endpoint", "GET", "/v1/nothing", ``},
	}
	c := unixClient(socket)
	var out []rawRequest
	for _, r := range reqs {
		rr := rawRequest{Name: r.name, Method: r.method, Path: r.path, BodyBytes: len(r.body)}
		req, err := http.NewRequest(r.method, "http://kvtier"+r.path, bytes.NewBufferString(r.body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			rr.Err = err.Error()
		} else {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			rr.Status, rr.Reply = resp.StatusCode, strings.TrimSpace(string(b))
		}
		out = append(out, rr)
	}
	return out, nil
}
