package daemon

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvtier/kvtier/daemon/api"
)

// errOutsideDir: a trace path that is not inside the record directory.
var errOutsideDir = errors.New("outside the record directory")

// traceName turns the path of a trace request into a name relative to
// dir: a relative name, or an absolute path inside dir. It refuses what
// could leave dir by name (".." elements); symbolic links are refused when
// the file is opened (openTraceIn).
func traceName(dir, path string) (string, error) {
	if path == "" {
		return "", badRequest("trace path: empty; want a file name inside %s", dir)
	}
	name := path
	if filepath.IsAbs(path) {
		rel, err := filepath.Rel(dir, filepath.Clean(path))
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return "", &reqError{http.StatusForbidden, fmt.Sprintf("trace path %q: %v %s (record.dir)",
				path, errOutsideDir, dir)}
		}
		name = rel
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return "", &reqError{http.StatusForbidden, fmt.Sprintf("trace path %q: \"..\" is not allowed "+
				"(traces are written inside %s, record.dir)", path, dir)}
		}
	}
	return filepath.Clean(name), nil
}

// openTraceIn creates the new file name inside dir, never following a
// symbolic link out of dir (os.Root) and never opening an existing file
// (O_EXCL: an existing name, a symbolic link included, is a 409).
func openTraceIn(dir, name string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("record directory %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("record directory %s: %w", dir, err)
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, os.ErrExist):
		return nil, &reqError{http.StatusConflict, fmt.Sprintf("trace %s exists in %s: traces never "+
			"overwrite a file; choose a new name", name, dir)}
	case errors.Is(err, os.ErrNotExist):
		return nil, badRequest("trace %s: no such directory in %s", name, dir)
	}
	return nil, &reqError{http.StatusForbidden, fmt.Sprintf("trace %s in %s: %v", name, dir, err)}
}

// startTraceIn starts recording to path (a name inside dir, or an
// absolute path inside it) for the API.
func (d *Daemon) startTraceIn(dir, path string) (api.TraceStatus, error) {
	name, err := traceName(dir, path)
	if err != nil {
		return api.TraceStatus{}, err
	}
	full := filepath.Join(dir, name)
	return d.startTrace(full, func() (*os.File, error) { return openTraceIn(dir, name) })
}
