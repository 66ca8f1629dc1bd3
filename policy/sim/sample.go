package sim

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the Mooncake sample trace
	"fmt"

	"github.com/kvtier/kvtier/policy/trace"
)

//go:embed testdata/mooncake_conversation_trace.jsonl.gz
var mooncakeGz []byte

// MooncakeSampleName names the embedded Mooncake conversation trace.
const MooncakeSampleName = "mooncake_conversation"

// MooncakeSample returns an opener of the embedded Mooncake conversation
// trace (kvcache-ai/Mooncake, Apache-2.0; see testdata/README.md) read with
// opt.
func MooncakeSample(opt trace.MooncakeOptions) Opener {
	return func() (trace.Reader, error) {
		zr, err := gzip.NewReader(bytes.NewReader(mooncakeGz))
		if err != nil {
			return nil, fmt.Errorf("opening embedded Mooncake trace: %w", err)
		}
		return trace.NewMooncake(zr, MooncakeSampleName, opt), nil
	}
}
