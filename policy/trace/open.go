package trace

import (
	"fmt"
	"os"
)

// file is a Reader over an open file.
type file struct {
	Reader
	f *os.File
}

// Close closes the file.
func (f *file) Close() error { return f.f.Close() }

// OpenMooncake opens a Mooncake JSONL trace file.
func OpenMooncake(path string, opt MooncakeOptions) (Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening trace: %w", err)
	}
	return &file{Reader: NewMooncake(f, path, opt), f: f}, nil
}
