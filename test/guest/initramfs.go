package guest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// DefaultBusybox is where Debian's busybox-static installs its binary.
const DefaultBusybox = "/usr/bin/busybox"

// Item is one file of an initramfs: its path in the guest and either the
// host file to copy (Source) or the bytes themselves (Data).
type Item struct {
	Path   string
	Source string
	Data   []byte
	Mode   uint32 // permission bits; 0 means 0755 for Source, 0644 for Data
}

// Initramfs describes a guest root file system.
type Initramfs struct {
	// Busybox is a static busybox binary; it is installed as /bin/busybox
	// with a symlink for each of its applets.
	Busybox string
	// Init is the /init script (run by the kernel as PID 1).
	Init string
	// Items are further files (binaries, configs).
	Items []Item
}

// Write writes the gzip-compressed newc archive to w.
func (r *Initramfs) Write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	c := NewCPIOWriter(zw)
	if err := r.fill(c); err != nil {
		return err
	}
	if err := c.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compressing initramfs: %w", err)
	}
	return nil
}

// WriteFile writes the archive to the file name.
func (r *Initramfs) WriteFile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := r.Write(bw); err != nil {
		f.Close()
		return fmt.Errorf("writing initramfs %s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing initramfs %s: %w", name, err)
	}
	return f.Close()
}

func (r *Initramfs) fill(c *CPIOWriter) error {
	for _, d := range []string{"bin", "sbin", "usr/bin", "usr/sbin", "etc", "proc", "sys", "dev", "run", "tmp", "var", "root"} {
		if err := c.Dir(d, 0o755); err != nil {
			return err
		}
	}
	if err := c.CharDev("dev/console", 0o600, 5, 1); err != nil {
		return err
	}
	if err := c.CharDev("dev/null", 0o666, 1, 3); err != nil {
		return err
	}
	if r.Busybox != "" {
		if err := addBusybox(c, r.Busybox); err != nil {
			return err
		}
	}
	if r.Init == "" {
		return fmt.Errorf("initramfs: no init script")
	}
	if err := c.File("init", 0o755, []byte(r.Init)); err != nil {
		return err
	}
	for _, it := range r.Items {
		data, mode := it.Data, it.Mode
		if it.Source != "" {
			var err error
			if data, err = os.ReadFile(it.Source); err != nil {
				return fmt.Errorf("initramfs item %s: %w", it.Path, err)
			}
			if mode == 0 {
				mode = 0o755
			}
		} else if mode == 0 {
			mode = 0o644
		}
		if err := c.File(it.Path, mode, data); err != nil {
			return err
		}
	}
	return nil
}

// addBusybox installs the binary as /bin/busybox and links every applet it
// lists (busybox --list-full) to it.
func addBusybox(c *CPIOWriter, bin string) error {
	data, err := os.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("busybox: %w (install busybox-static)", err)
	}
	out, err := exec.Command(bin, "--list-full").Output()
	if err != nil {
		return fmt.Errorf("listing busybox applets of %s: %w", bin, err)
	}
	if err := c.File("bin/busybox", 0o755, data); err != nil {
		return err
	}
	for _, line := range bytes.Split(out, []byte("\n")) {
		p := strings.TrimSpace(string(line))
		if p == "" || p == "bin/busybox" {
			continue
		}
		if err := c.Symlink(p, "/bin/busybox"); err != nil {
			return err
		}
	}
	return nil
}
