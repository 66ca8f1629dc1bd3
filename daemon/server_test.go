package daemon

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
)

const timeoutConfig = `
sampler "fault" {}
api {
  read_timeout = "300ms"
  idle_timeout = "300ms"
}
`

// closedWithin reports whether the server closes conn within d (a read
// returns EOF or a reset rather than timing out).
func closedWithin(t *testing.T, conn net.Conn, d time.Duration) bool {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

func TestServerTimeouts(t *testing.T) {
	td := startDaemon(t, timeoutConfig)
	sock := td.d.Config().API.Socket
	dial := func() net.Conn {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	t.Run("slow headers", func(t *testing.T) {
		c := dial()
		_, _ = io.WriteString(c, "GET /v1/status HTTP/1.1\r\nHost: k\r\n")
		if !closedWithin(t, c, 3*time.Second) {
			t.Error("a connection that never finishes its headers stays open")
		}
	})
	t.Run("slow body", func(t *testing.T) {
		c := dial()
		_, _ = io.WriteString(c, "POST /v1/regions HTTP/1.1\r\nHost: k\r\nContent-Length: 100\r\n\r\n{")
		if !closedWithin(t, c, 3*time.Second) {
			t.Error("a connection that never finishes its body stays open")
		}
	})
	t.Run("idle", func(t *testing.T) {
		c := dial()
		_, _ = io.WriteString(c, "GET /v1/status HTTP/1.1\r\nHost: k\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("status = %v, %v", resp, err)
		}
		if !closedWithin(t, c, 3*time.Second) {
			t.Error("an idle keep-alive connection stays open")
		}
	})
	t.Run("huge headers", func(t *testing.T) {
		c := dial()
		_, _ = io.WriteString(c, "GET /v1/status HTTP/1.1\r\nHost: k\r\nX-Big: "+strings.Repeat("a", 200<<10)+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("200KiB of headers = %v, %v; want 431", resp, err)
		}
	})
}

// TestEventsOutliveReadTimeout: the event stream is not cut by the
// read timeout.
func TestEventsOutliveReadTimeout(t *testing.T) {
	td := startDaemon(t, timeoutConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	err := td.client.Events(ctx, func(api.Event) error { return nil })
	if ctx.Err() == nil {
		t.Fatalf("the event stream ended after less than 1.5s (read_timeout 300ms): %v", err)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	td := startDaemon(t, "sampler \"fault\" {}\n")
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", td.d.Config().API.Socket)
	}}}
	tests := []struct {
		method, path, allow string
		code                int
	}{
		{"PUT", "/v1/status", "GET, HEAD", 405},
		{"POST", "/v1/regions/3", "GET, PATCH, DELETE, HEAD", 405},
		{"GET", "/v1/trace", "", 200},
		{"PATCH", "/v1/trace", "GET, POST, DELETE, HEAD", 405},
		{"GET", "/v1/nothing", "", 404},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, "http://k"+tt.path, nil)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || resp.Header.Get("Allow") != tt.allow {
			t.Errorf("%s %s = %d Allow %q, want %d Allow %q", tt.method, tt.path, resp.StatusCode,
				resp.Header.Get("Allow"), tt.code, tt.allow)
		}
		if tt.code >= 400 && (resp.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(string(body), `{"error":`)) {
			t.Errorf("%s %s: body %q is not a JSON error", tt.method, tt.path, body)
		}
	}
}
