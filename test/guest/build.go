package guest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/kvtier/kvtier/internal/buildflags"
)

// Programs are the static binaries every guest runs, by file name and Go
// package (relative to the module root).
var Programs = []struct{ Name, Package string }{
	{"kvtier", "."},
	{"workload", "./test/workload"},
	{"probe", "./test/probe"},
}

// BuildPrograms builds Programs with CGO_ENABLED=0 into dir from the
// module at root. kvtier is built with the Makefile's -ldflags (version and
// commit stamped, symbols stripped); the others keep their symbol tables:
// the uprobe sampler attaches to the workload's main.kvtierHintAccess.
func BuildPrograms(root, dir string) error {
	for _, b := range Programs {
		args := []string{"build", "-trimpath", "-o", filepath.Join(dir, b.Name)}
		if b.Name == "kvtier" {
			// As `make build` builds it: the daemon reports the version.
			args = append(args, "-ldflags", buildflags.LDFlags(root))
		}
		cmd := exec.Command("go", append(args, b.Package)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s (CGO_ENABLED=0 go build %s): %w\n%s", b.Name, b.Package, err, out)
		}
	}
	return nil
}
