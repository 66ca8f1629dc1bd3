package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Files the report writes into its directory.
const (
	JSONFile     = "results.json"
	MarkdownFile = "RESULTS.md"
	SVGFile      = "hotshare.svg"
)

// WriteAll writes results.json, RESULTS.md and hotshare.svg into dir.
func WriteAll(dir string, res *Results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report directory: %w", err)
	}
	js, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", JSONFile, err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{JSONFile, append(js, '\n')},
		{MarkdownFile, Markdown(res)},
		{SVGFile, SVG(res)},
	} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
	}
	return nil
}

// ReadJSON reads a results.json written by WriteAll.
func ReadJSON(file string) (*Results, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", file, err)
	}
	return &res, nil
}
