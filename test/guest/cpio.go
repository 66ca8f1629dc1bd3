package guest

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// File mode type bits of a cpio entry (as in stat(2)).
const (
	modeDir     = 0o040000
	modeRegular = 0o100000
	modeSymlink = 0o120000
	modeCharDev = 0o020000
)

// ErrBadPath is returned for an archive path that is empty, absolute after
// cleaning to "..", or otherwise unusable.
var ErrBadPath = errors.New("bad archive path")

// CPIOWriter writes a newc ("070701") cpio archive, the format the kernel
// unpacks as an initramfs. Parent directories are created on demand and
// every path is written once; all entries belong to root.
type CPIOWriter struct {
	w      io.Writer
	ino    uint32
	seen   map[string]bool
	closed bool
	err    error
}

// NewCPIOWriter returns a writer that appends entries to w.
func NewCPIOWriter(w io.Writer) *CPIOWriter {
	return &CPIOWriter{w: w, ino: 1, seen: map[string]bool{".": true}}
}

// Dir adds a directory with the given permission bits.
func (c *CPIOWriter) Dir(name string, perm uint32) error {
	name, err := c.prepare(name)
	if err != nil || c.seen[name] {
		return err
	}
	c.seen[name] = true
	return c.entry(name, modeDir|perm&0o7777, 2, 0, 0, nil)
}

// File adds a regular file holding data.
func (c *CPIOWriter) File(name string, perm uint32, data []byte) error {
	name, err := c.prepare(name)
	if err != nil {
		return err
	}
	if c.seen[name] {
		return fmt.Errorf("cpio %s: %w: written twice", name, ErrBadPath)
	}
	c.seen[name] = true
	return c.entry(name, modeRegular|perm&0o7777, 1, 0, 0, data)
}

// Symlink adds a symbolic link name pointing at target.
func (c *CPIOWriter) Symlink(name, target string) error {
	name, err := c.prepare(name)
	if err != nil {
		return err
	}
	if c.seen[name] {
		return fmt.Errorf("cpio %s: %w: written twice", name, ErrBadPath)
	}
	c.seen[name] = true
	return c.entry(name, modeSymlink|0o777, 1, 0, 0, []byte(target))
}

// CharDev adds a character device node (for example /dev/console, 5:1,
// which the kernel opens for init before devtmpfs is mounted).
func (c *CPIOWriter) CharDev(name string, perm, major, minor uint32) error {
	name, err := c.prepare(name)
	if err != nil {
		return err
	}
	if c.seen[name] {
		return fmt.Errorf("cpio %s: %w: written twice", name, ErrBadPath)
	}
	c.seen[name] = true
	return c.entry(name, modeCharDev|perm&0o7777, 1, major, minor, nil)
}

// Close writes the trailer. It does not close the underlying writer.
func (c *CPIOWriter) Close() error {
	if c.closed {
		return c.err
	}
	c.closed = true
	if c.err != nil {
		return c.err
	}
	c.ino = 0
	return c.entry("TRAILER!!!", 0, 1, 0, 0, nil)
}

// prepare cleans name and creates its parent directories.
func (c *CPIOWriter) prepare(name string) (string, error) {
	if c.err != nil {
		return "", c.err
	}
	if c.closed {
		return "", fmt.Errorf("cpio %s: writer closed", name)
	}
	clean := strings.TrimPrefix(path.Clean("/"+name), "/")
	if name == "" || clean == "" || strings.ContainsRune(clean, 0) {
		return "", fmt.Errorf("cpio %q: %w", name, ErrBadPath)
	}
	if dir := path.Dir(clean); dir != "." && !c.seen[dir] {
		if err := c.Dir(dir, 0o755); err != nil {
			return "", err
		}
	}
	return clean, nil
}

// entry writes one header, the name and the data, each padded to 4 bytes.
func (c *CPIOWriter) entry(name string, mode, nlink, rmajor, rminor uint32, data []byte) error {
	ino := c.ino
	if name != "TRAILER!!!" {
		c.ino++
	}
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rmajor, rminor, len(name)+1, 0)
	buf := make([]byte, 0, len(hdr)+len(name)+8+len(data))
	buf = append(buf, hdr...)
	buf = append(buf, name...)
	buf = append(buf, 0)
	buf = pad4(buf)
	buf = append(buf, data...)
	buf = pad4(buf)
	if _, err := c.w.Write(buf); err != nil {
		c.err = fmt.Errorf("writing cpio entry %s: %w", name, err)
		return c.err
	}
	return nil
}

// pad4 pads b with NULs to a multiple of 4 bytes. The header is 110 bytes,
// and every entry starts aligned, so padding the running buffer is enough.
func pad4(b []byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
