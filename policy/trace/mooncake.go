package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"math"

	"github.com/kvtier/kvtier/policy"
)

// KV-cache bytes per token at fp16 of two Llama-class models:
// 2 (K and V) x layers x KV heads x head dim x 2 bytes.
const (
	// KVBytesLlama2_70B is Llama-2-70B's: 80 layers, 8 KV heads (GQA),
	// head dim 128: 327,680 bytes (320 KiB) a token. The Mooncake paper
	// served its traces with a LLaMA2-70B-shaped model, so this is the
	// Mooncake reader's default; a 512-token block is 160 MiB.
	KVBytesLlama2_70B int64 = 2 * 80 * 8 * 128 * 2
	// KVBytesLlama3_8B is Llama-3-8B's: 32 layers, 8 KV heads, head dim
	// 128: 131,072 bytes (128 KiB) a token; a 512-token block is 64 MiB.
	KVBytesLlama3_8B int64 = 2 * 32 * 8 * 128 * 2
)

// DecodeBlockBit is set in the key of every decode block the Mooncake
// reader makes up; hash ids at or above it are rejected, so the two never
// collide.
const DecodeBlockBit uint64 = 1 << 63

// IsDecodeBlock reports whether a Mooncake record's block is a decode block
// (made up by the reader) rather than a prompt block (a hash id).
func IsDecodeBlock(block uint64) bool { return block&DecodeBlockBit != 0 }

// TimeMode chooses what Record.Time holds for traces with wall-clock
// timestamps.
type TimeMode uint8

// Time modes.
const (
	// TimeStep numbers the accesses 0, 1, 2, ...: one step per block
	// access, the unit of the synthetic workloads and of policy horizons.
	TimeStep TimeMode = iota
	// TimeStamp uses the trace's timestamp converted to nanoseconds
	// (Mooncake: milliseconds x 1e6; LMBench: nanoseconds as they are);
	// every block of a request shares its request's time.
	TimeStamp
)

// MooncakeOptions configure a Mooncake or LMBench reader. The zero value is
// the documented default.
type MooncakeOptions struct {
	// BlockTokens is the tokens per block of the trace's hash ids;
	// 0 means 512, the Mooncake traces' block size.
	BlockTokens int
	// KVBytesPerToken is the fp16 KV-cache bytes of one token; 0 means
	// KVBytesLlama2_70B. Every block, prompt or decode, is BlockTokens x
	// KVBytesPerToken bytes: a paged allocator allocates whole blocks.
	KVBytesPerToken int64
	// NoDecode leaves out the decode blocks: only the prompt's hash ids
	// are read.
	NoDecode bool
	// FreeDecode emits an OpFree for each decode block of a request after
	// its last one: no later request shares them.
	FreeDecode bool
	// Time chooses Record.Time: TimeStep (default) or TimeStamp.
	Time TimeMode
	// NoRefCount skips reference counting, so the reader keeps no state
	// per block and RefCount is always 1.
	NoRefCount bool
}

// mooncakeReq is one parsed request of the trace.
type mooncakeReq struct {
	ts, in, out                  int64
	hasTS, hasIn, hasOut, hasIDs bool
	tsStr                        bool // the timestamp was a JSON string of digits
	ids                          []uint64
}

// parseJSON parses line with encoding/json: the fallback of
// parseMooncakeFast, and the source of positioned syntax errors.
func (m *Mooncake) parseJSON(line []byte) error {
	raw := &m.raw
	raw.Timestamp, raw.InputLength, raw.OutputLength = nil, nil, nil
	raw.HashIDs = nil
	if err := json.Unmarshal(line, raw); err != nil {
		return m.lines.jsonError(line, err)
	}
	r := &m.req
	*r = mooncakeReq{ids: append(r.ids[:0], raw.HashIDs...)}
	r.hasIDs = raw.HashIDs != nil || bytes.Contains(line, []byte(`"hash_ids"`))
	if err := r.setTimestamp(raw.Timestamp); err != nil {
		return m.lines.errorf(valueCol(line, "timestamp"), "timestamp", "%v", err)
	}
	for _, f := range []struct {
		p   *int64
		v   *int64
		has *bool
	}{{raw.InputLength, &r.in, &r.hasIn}, {raw.OutputLength, &r.out, &r.hasOut}} {
		if f.p != nil {
			*f.v, *f.has = *f.p, true
		}
	}
	return nil
}

// mooncakeLine is encoding/json's view of a request. Pointers tell a
// missing field from a zero one; the timestamp may be a number or a string
// (setTimestamp).
type mooncakeLine struct {
	Timestamp    json.RawMessage `json:"timestamp"`
	InputLength  *int64          `json:"input_length"`
	OutputLength *int64          `json:"output_length"`
	HashIDs      []uint64        `json:"hash_ids"`
}

// Mooncake reads a Mooncake JSONL trace (kvcache-ai/Mooncake, FAST'25),
// one request a line:
//
//	{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, ..., 13]}
//
// Request i (0-based, in file order) becomes, in order: one read of each of
// its hash_ids (Pos = index in hash_ids; equal ids are the same
// shared-prefix block), then unless NoDecode one write of each of the
// ceil((input_length+output_length)/BlockTokens) -
// ceil(input_length/BlockTokens) blocks its decode appends beyond the
// prompt's len(hash_ids) = ceil(input_length/BlockTokens) (Pos continuing
// after the prompt, keys DecodeBlockBit|n
// for the n-th decode block of the trace, never seen again), then with
// FreeDecode an OpFree of each of those. Meta: Seq = i, MaxLen = the
// request's total blocks, SeqLen = len(hash_ids) for prompt blocks and
// Pos+1 for decode blocks, RefCount = the number of requests so far
// (including this one) that read the block, Lifetime = the records left
// in the request under TimeStep (0, unknown, under TimeStamp), Priority
// normal, Size = BlockTokens x KVBytesPerToken.
//
// Timestamps are integer milliseconds, non-decreasing. Unknown keys are
// ignored. Memory is constant but for one reference counter per distinct
// prompt block (none with NoRefCount) and the longest line. NewLMBench
// reads LMBench's variant of the format with the same type.
type Mooncake struct {
	lines  *lineReader
	opt    MooncakeOptions
	refs   refCounts
	req    mooncakeReq
	raw    mooncakeLine // the encoding/json fallback's target
	size   int64
	lmb    *lmbenchQueue // LMBench: the requests in time order; nil for Mooncake
	tsUnit int64         // nanoseconds a timestamp unit: 1e6 (ms), LMBench 1

	// the request being emitted
	seq      int64 // index of the current request; -1 before the first
	ts       int64 // its timestamp in ms
	prompt   int   // len(hash_ids)
	total    int   // prompt + decode blocks
	next     int   // next block index to emit; then frees
	freeNext int   // next decode block to free
	decode0  uint64

	step      int64 // accesses emitted
	decodeCtr uint64
	prompts   int64
	decodes   int64
}

// NewMooncake returns a reader of the Mooncake trace in r; name is used in
// errors (a file name).
func NewMooncake(r io.Reader, name string, opt MooncakeOptions) *Mooncake {
	if opt.BlockTokens <= 0 {
		opt.BlockTokens = 512
	}
	if opt.KVBytesPerToken <= 0 {
		opt.KVBytesPerToken = KVBytesLlama2_70B
	}
	m := &Mooncake{lines: newLineReader(r, name), opt: opt, seq: -1, ts: -1,
		size: int64(opt.BlockTokens) * opt.KVBytesPerToken, tsUnit: 1_000_000}
	m.refs.sparse = map[uint64]int32{}
	return m
}

// Requests returns the requests read so far.
func (m *Mooncake) Requests() int64 { return m.seq + 1 }

// PromptBlocks returns the prompt block accesses emitted so far.
func (m *Mooncake) PromptBlocks() int64 { return m.prompts }

// DecodeBlocks returns the decode block accesses emitted so far.
func (m *Mooncake) DecodeBlocks() int64 { return m.decodes }

// DistinctPromptBlocks returns the distinct hash ids read so far, or 0
// with NoRefCount.
func (m *Mooncake) DistinctPromptBlocks() int { return m.refs.distinct }

// Next returns the next record, io.EOF at the end, or a *ParseError.
func (m *Mooncake) Next() (Record, error) {
	for {
		if m.seq >= 0 {
			if rec, ok := m.emit(); ok {
				return rec, nil
			}
		}
		if err := m.readRequest(); err != nil {
			return Record{}, err
		}
	}
}

// emit returns the current request's next record, or false when it has
// none left.
func (m *Mooncake) emit() (Record, bool) {
	rec := Record{Op: OpAccess, Meta: policy.Meta{Size: m.size, Priority: policy.PriorityNormal,
		RefCount: 1, Seq: uint64(m.seq), MaxLen: int32(m.total)}}
	last := m.total
	if m.opt.NoDecode {
		last = m.prompt
	}
	switch {
	case m.next < m.prompt:
		id := m.req.ids[m.next]
		rec.Block = id
		rec.Meta.SeqLen = int32(m.prompt)
		if !m.opt.NoRefCount {
			rec.Meta.RefCount = m.refs.inc(id)
		}
		m.prompts++
	case m.next < last:
		rec.Block = m.decode0 + uint64(m.next-m.prompt)
		rec.Write = true
		rec.Meta.SeqLen = int32(m.next + 1)
		m.decodes++
	case m.opt.FreeDecode && !m.opt.NoDecode && m.freeNext < m.total-m.prompt:
		rec.Op = OpFree
		rec.Block = m.decode0 + uint64(m.freeNext)
		rec.Meta.Pos = int32(m.prompt + m.freeNext)
		rec.Time = m.time(m.step - 1)
		m.freeNext++
		return rec, true
	default:
		return Record{}, false
	}
	rec.Meta.Pos = int32(m.next)
	rec.Time = m.time(m.step)
	if m.opt.Time == TimeStep {
		rec.Meta.Lifetime = float64(last - m.next - 1)
	}
	m.next++
	m.step++
	return rec, true
}

func (m *Mooncake) time(step int64) int64 {
	if m.opt.Time == TimeStamp {
		return m.ts * m.tsUnit
	}
	return max(step, 0)
}

// readRequest makes the next request of the trace the current one.
func (m *Mooncake) readRequest() error {
	var err error
	if m.lmb != nil {
		err = m.nextSorted()
	} else {
		err = m.nextLine()
	}
	if err != nil {
		return err
	}
	m.seq++
	m.ts = m.req.ts
	m.prompt = len(m.req.ids)
	// the blocks the output adds to input_length tokens in blocks of
	// BlockTokens, whatever the count of hash ids (LMBench's need not be
	// one per BlockTokens tokens)
	in, out, bt := m.req.in, m.req.out, int64(m.opt.BlockTokens)
	m.total = m.prompt + int((in+out+bt-1)/bt-(in+bt-1)/bt)
	m.next, m.freeNext = 0, 0
	if !m.opt.NoDecode {
		m.decode0 = DecodeBlockBit | m.decodeCtr
		m.decodeCtr += uint64(m.total - m.prompt)
	}
	return nil
}

// nextLine parses the next line into m.req and checks it.
func (m *Mooncake) nextLine() error {
	line, err := m.lines.next()
	if err != nil {
		return err
	}
	if !parseMooncakeFast(line, &m.req) {
		if err := m.parseJSON(line); err != nil {
			return err
		}
	}
	return m.check(line)
}

// check validates a parsed request against the format's invariants.
func (m *Mooncake) check(line []byte) error {
	bad := func(field, format string, a ...any) error {
		return m.lines.errorf(keyCol(line, field), field, format, a...)
	}
	r := &m.req
	if err := m.checkTime(line); err != nil {
		return err
	}
	switch {
	case !r.hasIn:
		return bad("input_length", "missing")
	case r.in < 0 || r.in > math.MaxInt32:
		return bad("input_length", "%d out of range [0, %d]", r.in, math.MaxInt32)
	case !r.hasOut:
		return bad("output_length", "missing")
	case r.out < 0 || r.out > math.MaxInt32:
		return bad("output_length", "%d out of range [0, %d]", r.out, math.MaxInt32)
	case !r.hasIDs:
		return bad("hash_ids", "missing")
	}
	bt := int64(m.opt.BlockTokens)
	if want := (r.in + bt - 1) / bt; int64(len(r.ids)) != want && m.lmb == nil {
		return bad("hash_ids", "%d ids, want ceil(input_length/%d) = %d", len(r.ids), bt, want)
	}
	for i, id := range r.ids {
		if id&DecodeBlockBit != 0 {
			return bad("hash_ids", "id %d (index %d) at or above 2^63", id, i)
		}
	}
	return nil
}

var _ Reader = (*Mooncake)(nil)

// refCounts counts the requests that read each hash id. Mooncake assigns
// hash ids densely in order of first appearance, so ids are counted in a
// slice while they stay near-dense and in a map beyond that.
type refCounts struct {
	dense    []int32
	sparse   map[uint64]int32
	distinct int
}

// inc counts one more reference to id and returns the count.
func (c *refCounts) inc(id uint64) int32 {
	var p *int32
	switch {
	case id < uint64(len(c.dense)):
		p = &c.dense[id]
	case id < uint64(2*len(c.dense)+4096):
		c.dense = append(c.dense, make([]int32, int(id)+1-len(c.dense))...)
		c.dense = c.dense[:cap(c.dense)]
		p = &c.dense[id]
	default:
		n := c.sparse[id] + 1
		c.sparse[id] = n
		if n == 1 {
			c.distinct++
		}
		return n
	}
	*p++
	if *p == 1 {
		c.distinct++
	}
	return *p
}
