package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Defaults of the API's limits and timeouts.
const (
	// DefaultMaxRegions bounds the regions registered at once.
	DefaultMaxRegions = 8192
	// DefaultMaxRegionsPerProcess bounds the regions of one process.
	DefaultMaxRegionsPerProcess = 1024
	// DefaultReadTimeout bounds reading one request, body included.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle that long.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultStateDir holds the registrations file (the unit's
	// StateDirectory=kvtier).
	DefaultStateDir = "/var/lib/kvtier"
	// DefaultTraceDir is where POST /v1/trace may write.
	DefaultTraceDir = "/var/lib/kvtier/traces"
)

// Fixed limits of the API.
const (
	// readHeaderTimeout bounds reading a request's headers.
	readHeaderTimeout = 10 * time.Second
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 64 << 10
)

type rawAPI struct {
	Socket          hcl.Expression `hcl:"socket,optional"`
	Mode            hcl.Expression `hcl:"mode,optional"`
	Group           *string        `hcl:"group,optional"`
	MaxBody         hcl.Expression `hcl:"max_body,optional"`
	MaxRegions      hcl.Expression `hcl:"max_regions,optional"`
	MaxRegionsPerPr hcl.Expression `hcl:"max_regions_per_process,optional"`
	ReadTimeout     hcl.Expression `hcl:"read_timeout,optional"`
	IdleTimeout     hcl.Expression `hcl:"idle_timeout,optional"`
	MinBlockSize    hcl.Expression `hcl:"min_block_size,optional"`
	MaxBlockSize    hcl.Expression `hcl:"max_block_size,optional"`
	MaxLabelBytes   hcl.Expression `hcl:"max_label_bytes,optional"`
}

type rawRecord struct {
	Path hcl.Expression `hcl:"path,optional"`
	Dir  hcl.Expression `hcl:"dir,optional"`
}

func (d *decoder) api(a *rawAPI, cfg *Config) {
	if s, ok := d.str(a.Socket, "socket"); ok {
		d.check(strings.HasPrefix(s, "/") && len(s) < 108, a.Socket, "socket", "an absolute path shorter than 108 bytes")
		cfg.API.Socket = s
	}
	if a.Group != nil {
		cfg.API.Group = *a.Group
	}
	if s, ok := d.str(a.Mode, "mode"); ok {
		m, err := strconv.ParseUint(s, 8, 32)
		if err != nil || m > 0o777 {
			d.fail(a.Mode.Range(), "Invalid mode", fmt.Sprintf("mode %q: want an octal file mode such as \"0660\"", s))
		}
		cfg.API.Mode = os.FileMode(m)
	}
	if v, ok := d.size(a.MaxBody, "max_body"); ok {
		d.check(v >= 1024 && v <= 64<<20, a.MaxBody, "max_body", "a size between 1KiB and 64MiB")
		cfg.API.MaxBody = v
	}
	if n, ok := d.integer(a.MaxRegions, "max_regions", 1, 1<<20); ok {
		cfg.API.MaxRegions = int(n)
	}
	if n, ok := d.integer(a.MaxRegionsPerPr, "max_regions_per_process", 1, 1<<20); ok {
		cfg.API.MaxRegionsPerProcess = int(n)
	}
	if dur, ok := d.duration(a.ReadTimeout, "read_timeout"); ok {
		d.check(dur >= 100*time.Millisecond && dur <= time.Hour, a.ReadTimeout, "read_timeout",
			"a duration between 100ms and 1h")
		cfg.API.ReadTimeout = dur
	}
	if dur, ok := d.duration(a.IdleTimeout, "idle_timeout"); ok {
		d.check(dur >= 100*time.Millisecond && dur <= time.Hour, a.IdleTimeout, "idle_timeout",
			"a duration between 100ms and 1h")
		cfg.API.IdleTimeout = dur
	}
	d.limits(a, cfg)
}

// limits decodes the api block's registration limits.
func (d *decoder) limits(a *rawAPI, cfg *Config) {
	lim := &cfg.API.Limits
	for _, b := range []struct {
		e    hcl.Expression
		name string
		dst  *uint64
	}{{a.MinBlockSize, "min_block_size", &lim.MinBlockSize}, {a.MaxBlockSize, "max_block_size", &lim.MaxBlockSize}} {
		if v, ok := d.size(b.e, b.name); ok {
			d.check(hardLimits.checkBlockSize(uint64(v)) == nil, b.e, b.name, hardLimits.blockSizeWant())
			*b.dst = uint64(v)
		}
	}
	d.check(lim.MinBlockSize <= lim.MaxBlockSize, a.MaxBlockSize, "max_block_size", "a size at least min_block_size")
	if n, ok := d.integer(a.MaxLabelBytes, "max_label_bytes", 1, maxLabelBound); ok {
		lim.MaxLabelBytes = int(n)
	}
}

func (d *decoder) record(r *rawRecord, cfg *Config) {
	if s, ok := d.str(r.Path, "path"); ok {
		d.check(strings.HasPrefix(s, "/"), r.Path, "path", "an absolute file path")
		cfg.Record.Path = s
	}
	if s, ok := d.str(r.Dir, "dir"); ok {
		d.check(filepath.IsAbs(s) && filepath.Clean(s) != "/", r.Dir, "dir", "an absolute directory path other than /")
		cfg.Record.Dir = filepath.Clean(s)
	}
}

// settings decodes the top-level kernel_tiering, max_tenants and
// state_dir (an absolute directory other than /).
func (d *decoder) settings(raw *rawConfig, cfg *Config) {
	if s, ok := d.enum(raw.KernelTiering, "kernel_tiering",
		KernelTieringRefuse, KernelTieringDisable, KernelTieringReport); ok {
		cfg.KernelTiering = s
	}
	if n, ok := d.integer(raw.MaxTenants, "max_tenants", 1, 1<<20); ok {
		cfg.MaxTenants = int(n)
	}
	if s, ok := d.str(raw.StateDir, "state_dir"); ok {
		d.check(filepath.IsAbs(s) && filepath.Clean(s) != "/", raw.StateDir, "state_dir",
			"an absolute directory path other than /")
		cfg.StateDir = filepath.Clean(s)
	}
}
