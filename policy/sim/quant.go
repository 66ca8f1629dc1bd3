package sim

import (
	"fmt"
	"strings"
)

// Quant is a KV quantisation format. It changes a block's footprint and
// adds a decode penalty to every transfer of the block.
type Quant uint8

// Quantisation formats.
const (
	FP16 Quant = iota
	FP8
	INT8
	INT4
	INT2
)

var quantInfo = [...]struct {
	name   string
	bytes  float64 // bytes per scalar
	decode float64 // ms added to each transfer
}{
	FP16: {"fp16", 2, 0},
	FP8:  {"fp8", 1, 0.01},
	// int8 has fp8's footprint; its decode is a multiply by a per-group
	// scale, cheaper than fp8's exponent handling and dearer than none, so
	// kvtier charges half of fp8's penalty.
	INT8: {"int8", 1, 0.005},
	INT4: {"int4", 0.5, 0.03},
	INT2: {"int2", 0.25, 0.06},
}

// Quants lists every format, widest first.
func Quants() []Quant { return []Quant{FP16, FP8, INT8, INT4, INT2} }

// String returns the format's name (fp16, fp8, int8, int4, int2).
func (q Quant) String() string {
	if int(q) < len(quantInfo) {
		return quantInfo[q].name
	}
	return fmt.Sprintf("quant(%d)", q)
}

// BytesPerScalar returns the footprint of one scalar.
func (q Quant) BytesPerScalar() float64 { return quantInfo[q].bytes }

// DecodeMs returns the decode penalty in milliseconds added to a transfer.
func (q Quant) DecodeMs() float64 { return quantInfo[q].decode }

// Scale converts an fp16 size in bytes to this format's size, rounding up
// to whole bytes and never below one.
func (q Quant) Scale(fp16Bytes int64) int64 {
	if q == FP16 {
		return fp16Bytes
	}
	s := int64(float64(fp16Bytes)*q.BytesPerScalar()/2 + 0.999999)
	if s < 1 {
		s = 1
	}
	return s
}

// ParseQuant parses a format name.
func ParseQuant(s string) (Quant, error) {
	for i, in := range quantInfo {
		if strings.EqualFold(in.name, s) {
			return Quant(i), nil
		}
	}
	return 0, fmt.Errorf("unknown quantisation %q (want fp16, fp8, int8, int4 or int2)", s)
}
