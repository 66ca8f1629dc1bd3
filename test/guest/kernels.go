package guest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoKernel is returned when a kernel series is not in the cache.
var ErrNoKernel = errors.New("kernel not available")

// Kernel is one unpacked Debian kernel package.
type Kernel struct {
	Series  string // "6.12" or "6.1"
	Package string // linux-image-6.12.117+deb12-amd64
	Vmlinuz string
	Config  string
}

// Kernels maps a series to its kernel.
type Kernels map[string]Kernel

// Get returns the kernel of a series or an error wrapping ErrNoKernel.
func (ks Kernels) Get(series string) (Kernel, error) {
	k, ok := ks[series]
	if !ok {
		return Kernel{}, fmt.Errorf("kernel series %s: %w", series, ErrNoKernel)
	}
	return k, nil
}

// PrepareHost runs testDir/deps.sh, which installs QEMU and busybox-static
// when they are missing (as root, with apt-get) and fetches and unpacks the
// kernels into testDir/.cache, then returns the kernels it lists. Its
// message says what is missing when it cannot.
func PrepareHost(testDir string) (Kernels, error) {
	cmd := exec.Command("bash", filepath.Join(testDir, "deps.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("preparing the e2e host (test/deps.sh): %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return ParseKernels(out)
}

// ParseKernels reads the manifest deps.sh prints: one kernel a line,
// "SERIES\tPACKAGE\tVMLINUZ\tCONFIG".
func ParseKernels(b []byte) (Kernels, error) {
	ks := Kernels{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 || f[0] == "" || f[2] == "" {
			return nil, fmt.Errorf("kernel manifest line %d: %q: want SERIES, PACKAGE, VMLINUZ and CONFIG separated by tabs", line, sc.Text())
		}
		ks[f[0]] = Kernel{Series: f[0], Package: f[1], Vmlinuz: f[2], Config: f[3]}
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("kernel manifest is empty: %w", ErrNoKernel)
	}
	return ks, nil
}
