package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"time"
)

// apiServer is the unix-socket API and the metrics listener.
type apiServer struct {
	api     *http.Server
	metrics *http.Server
	mln     net.Listener
	socket  string
	done    chan struct{}
}

// listen opens the API socket (mode and group from the config) and the
// metrics listener, and starts serving both.
func (d *Daemon) listen() (*apiServer, error) {
	cfg := d.Config()
	ln, err := listenUnix(cfg.API)
	if err != nil {
		return nil, err
	}
	s := &apiServer{socket: cfg.API.Socket, done: make(chan struct{})}
	s.api = d.newAPIServer(cfg.API)
	if cfg.Metrics.Listen != "" {
		s.mln, err = net.Listen("tcp", cfg.Metrics.Listen)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("metrics listener on %s: %w", cfg.Metrics.Listen, err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", d.metrics.handler())
		s.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = s.metrics.Serve(s.mln) }()
		if w := metricsExposureWarning(cfg.Metrics.Listen, underSystemd()); w != "" {
			d.log.Warn(w)
		}
	}
	go func() {
		defer close(s.done)
		if err := s.api.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Named("api").Error("api server stopped", "error", err)
		}
	}()
	return s, nil
}

// newAPIServer is the API's HTTP server: every request knows its caller
// (connContext), and slow or idle clients cannot hold connections open.
// There is no write timeout: the event stream runs for as long as its
// client reads.
func (d *Daemon) newAPIServer(c APIConfig) *http.Server {
	return &http.Server{Handler: d.routes(), ConnContext: connContext,
		ReadHeaderTimeout: min(readHeaderTimeout, c.ReadTimeout), ReadTimeout: c.ReadTimeout,
		IdleTimeout: c.IdleTimeout, MaxHeaderBytes: maxHeaderBytes,
		ErrorLog: d.log.Named("api").StandardLogger(nil)}
}

// listenUnix creates the socket, replacing a stale one, with its mode and
// group.
func listenUnix(c APIConfig) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(c.Socket), 0o755); err != nil {
		return nil, fmt.Errorf("api socket directory: %w", err)
	}
	if conn, err := net.Dial("unix", c.Socket); err == nil {
		conn.Close()
		return nil, fmt.Errorf("api socket %s: another daemon is listening there", c.Socket)
	}
	if err := os.Remove(c.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing stale api socket: %w", err)
	}
	ln, err := net.Listen("unix", c.Socket)
	if err != nil {
		return nil, fmt.Errorf("api socket: %w", err)
	}
	if err := os.Chmod(c.Socket, c.Mode); err != nil {
		ln.Close()
		return nil, fmt.Errorf("api socket mode: %w", err)
	}
	if c.Group != "" {
		gid, err := lookupGroup(c.Group)
		if err == nil {
			err = os.Chown(c.Socket, -1, gid)
		}
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("api socket group %q: %w", c.Group, err)
		}
	}
	return ln, nil
}

func lookupGroup(name string) (int, error) {
	if gid, err := strconv.Atoi(name); err == nil {
		return gid, nil
	}
	g, err := user.LookupGroup(name)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(g.Gid)
}

// metricsAddr is the metrics listener's address ("" when disabled).
func (s *apiServer) metricsAddr() string {
	if s.mln == nil {
		return ""
	}
	return s.mln.Addr().String()
}

// shutdown stops both servers; event streams are closed first so that
// they do not hold the shutdown.
func (s *apiServer) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = s.api.Shutdown(ctx)
	if s.metrics != nil {
		_ = s.metrics.Shutdown(ctx)
	}
	<-s.done
}

// MetricsAddr returns the address the metrics listener is bound to (useful
// with port 0) once Ready is closed; "" when disabled or not yet ready.
func (d *Daemon) MetricsAddr() string {
	select {
	case <-d.ready:
		return d.api.metricsAddr()
	default:
		return ""
	}
}
