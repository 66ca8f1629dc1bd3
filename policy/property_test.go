package policy

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"testing"
)

// Properties every registered policy must have, checked over random traces:
// the Set's capacity is never exceeded, pinned blocks are never chosen,
// Victim returns only resident blocks, Len matches the residents, a fresh
// instance gives identical results for identical input, and Bélády never
// misses more than any online policy with unit sizes.

type opKind uint8

const (
	opAccess opKind = iota
	opForget
	opPin // toggle Pinned
)

// traceOp is one event of a property trace. meta is the block's metadata
// when the access creates it (first access, or first after a forget).
type traceOp struct {
	kind opKind
	id   BlockID
	meta Meta
	next Time // next access of the same block life, for offline policies
	// remeta applies meta (but the block's Size and Pinned) to a live
	// block too, as the simulator does when a shared block is read by
	// another sequence: in place before the access, or through Set.Update
	// when update is set.
	remeta, update bool
}

// traceShape says what a property trace holds.
type traceShape struct {
	n        int   // operations
	universe int   // distinct block IDs
	unit     int64 // bytes per size unit
	mixed    bool  // sizes 1..8 units, else 1 unit
	pins     bool  // pinned blocks and pin toggles
	forgets  bool  // blocks freed and their IDs reused
	seqs     bool  // Mooncake-like requests (genSeqTrace), not genTrace's mix
}

// genTrace builds a reproducible trace: a hot set, uniform accesses and
// sequential scans, with metadata for class-, tenant-, sequence- and
// lifetime-aware policies.
func genTrace(seed uint64, sh traceShape) []traceOp {
	if sh.seqs {
		return genSeqTrace(seed, sh)
	}
	r := rand.New(rand.NewPCG(seed, 0x6b767469))
	ops := make([]traceOp, 0, sh.n)
	scan := 0
	hot := max(sh.universe/10, 1)
	for range sh.n {
		var op traceOp
		switch x := r.Float64(); {
		case sh.forgets && x < 0.03:
			op = traceOp{kind: opForget, id: BlockID(r.IntN(sh.universe))}
		case sh.pins && x < 0.05:
			op = traceOp{kind: opPin, id: BlockID(r.IntN(sh.universe))}
		case x < 0.55:
			op = traceOp{id: BlockID(r.IntN(hot))}
		case x < 0.8:
			op = traceOp{id: BlockID(r.IntN(sh.universe))}
		default:
			scan = (scan + 1) % sh.universe
			op = traceOp{id: BlockID(scan)}
		}
		if op.kind == opAccess {
			op.meta = genMeta(r, op.id, sh)
		}
		ops = append(ops, op)
	}
	fillNext(ops)
	return ops
}

func genMeta(r *rand.Rand, id BlockID, sh traceShape) Meta {
	units := int64(1)
	if sh.mixed {
		units = 1 << r.IntN(4)
	}
	return Meta{
		Size:     units * sh.unit,
		Tenant:   uint32(id % 4),
		Class:    Class(r.IntN(4)),
		Priority: Priority(r.IntN(3)),
		Pinned:   sh.pins && r.Float64() < 0.02,
		RefCount: int32(1 + r.IntN(3)),
		Lifetime: float64(r.IntN(200)),
		Seq:      uint64(id / 16),
		Pos:      int32(id % 16),
		SeqLen:   16,
		MaxLen:   int32(16 + r.IntN(32)),
	}
}

// fillNext sets each access's next access time (the driver's clock is the
// operation index + 1) within the same block life.
func fillNext(ops []traceOp) {
	next := map[BlockID]Time{}
	for i := len(ops) - 1; i >= 0; i-- {
		op := &ops[i]
		switch op.kind {
		case opForget:
			delete(next, op.id)
		case opAccess:
			op.next = Never
			if t, ok := next[op.id]; ok {
				op.next = t
			}
			next[op.id] = Time(i + 1)
		}
	}
}

// checked wraps a policy and fails the test the moment it breaks the
// interface contract: a victim that is not resident or is pinned, a Len
// that disagrees with the residents.
type checked struct {
	t       *testing.T
	p       Policy
	wrapper bool
	res     map[BlockID]*Block
}

func (c *checked) Access(b *Block, now Time) { c.p.Access(b, now) }

func (c *checked) Admit(b *Block, now Time) {
	if b.Meta.Pinned {
		c.t.Fatalf("set admitted pinned block %d into the policy", b.ID)
	}
	c.res[b.ID] = b
	c.p.Admit(b, now)
}

func (c *checked) Evict(b *Block, now Time) {
	delete(c.res, b.ID)
	c.p.Evict(b, now)
}

func (c *checked) Forget(b *Block) {
	delete(c.res, b.ID)
	c.p.Forget(b)
}

func (c *checked) Victim(now Time) (*Block, bool) {
	v, ok := c.p.Victim(now)
	switch {
	case ok && c.res[v.ID] != v:
		c.t.Fatalf("victim %d is not resident", v.ID)
	case ok && v.Meta.Pinned:
		c.t.Fatalf("victim %d is pinned", v.ID)
	case !ok && len(c.res) > 0 && !c.wrapper:
		c.t.Fatalf("no victim among %d residents", len(c.res))
	}
	return v, ok
}

func (c *checked) Len() int {
	n := c.p.Len()
	if n != len(c.res) {
		c.t.Fatalf("Len() = %d, %d blocks resident", n, len(c.res))
	}
	return n
}

// outcome summarises a replay.
type outcome struct {
	misses int
	digest uint64 // hits and victims in order
}

// specFor returns the spec the property tests use for a policy.
func specFor(info Info) string {
	if info.Wrapper {
		return info.Name + ":inner=lru"
	}
	return info.Name
}

// replayProps runs ops through a fresh policy in a Set of capBytes and checks
// the properties after every operation.
func replayProps(t *testing.T, info Info, env Env, capBytes int64, ops []traceOp) outcome {
	t.Helper()
	p, err := New(specFor(info), env)
	if err != nil {
		t.Fatalf("new %s: %v", specFor(info), err)
	}
	c := &checked{t: t, p: p, wrapper: info.Wrapper, res: map[BlockID]*Block{}}
	s := NewSet(c, capBytes)
	h := fnv.New64a()
	blocks := map[BlockID]*Block{}
	var out outcome
	var ev []*Block
	for i, op := range ops {
		b, live := blocks[op.id]
		switch op.kind {
		case opForget:
			if live {
				s.Forget(b)
				delete(blocks, op.id)
			}
		case opPin:
			if live {
				s.SetPinned(b, !b.Meta.Pinned, Time(i+1))
			}
		case opAccess:
			var miss bool
			if miss, ev = replayAccess(t, s, blocks, i, op, h, ev); miss {
				out.misses++
			}
		}
		checkSet(t, i, s, c)
	}
	out.digest = h.Sum64()
	// Freeing every block leaves nothing behind.
	for _, b := range blocks {
		s.Forget(b)
	}
	checkSet(t, len(ops), s, c)
	if w, ok := seqWindowsOf(p); ok && len(w.seqs) != 0 {
		t.Fatalf("%d sequences still tracked after freeing every block", len(w.seqs))
	}
	return out
}

// replayAccess replays op, the access at index i, in s: a block not in
// blocks is created with op's metadata, a live one gets op's metadata
// (keeping its size and pin) in place or through Update; then it is
// accessed and, on a miss, admitted. The hit, or the miss and the victims,
// go into h; the returned buffer holds the victims, for reuse.
func replayAccess(t *testing.T, s *Set, blocks map[BlockID]*Block, i int, op traceOp, h io.Writer, ev []*Block) (bool, []*Block) {
	t.Helper()
	now := Time(i + 1)
	b, live := blocks[op.id]
	switch {
	case !live:
		b = &Block{ID: op.id, Meta: op.meta}
		blocks[op.id] = b
	case op.remeta:
		m := op.meta
		m.Size, m.Pinned = b.Meta.Size, b.Meta.Pinned
		if !op.update {
			b.Meta = m
			break
		}
		// Same size: nothing is evicted.
		if _, err := s.Update(b, m, now, nil); err != nil {
			t.Fatalf("op %d: update %d: %v", i, op.id, err)
		}
	}
	b.Next = op.next
	if s.Access(b, now) {
		fmt.Fprintf(h, "h%d;", op.id)
		return false, ev
	}
	ev, err := s.Admit(b, now, ev[:0])
	if err != nil && !errors.Is(err, ErrNoRoom) {
		t.Fatalf("op %d: admit %d: %v", i, op.id, err)
	}
	fmt.Fprintf(h, "m%d", op.id)
	for _, v := range ev {
		if v.Meta.Pinned {
			t.Fatalf("op %d: pinned block %d evicted", i, v.ID)
		}
		fmt.Fprintf(h, ",%d", v.ID)
	}
	h.Write([]byte{';'})
	return true, ev
}

// seqWindowsOf returns the per-sequence state of a sequence-aware policy.
func seqWindowsOf(p Policy) (*seqWindows, bool) {
	switch p := p.(type) {
	case *Windowed:
		return &p.wins, true
	case *Streaming:
		return &p.wins, true
	}
	return nil, false
}

// checkSet checks the Set against the policy after an operation.
func checkSet(t *testing.T, i int, s *Set, c *checked) {
	t.Helper()
	if s.Used() > s.Capacity() {
		t.Fatalf("op %d: %d bytes used, capacity %d", i, s.Used(), s.Capacity())
	}
	var used int64
	unpinned := 0
	for id, b := range s.resident {
		used += b.Meta.Size
		if !b.Meta.Pinned {
			unpinned++
			if c.res[id] != b {
				t.Fatalf("op %d: resident block %d unknown to the policy", i, id)
			}
		}
	}
	if used != s.Used() {
		t.Fatalf("op %d: residents hold %d bytes, Used() = %d", i, used, s.Used())
	}
	if n := c.Len(); n != unpinned {
		t.Fatalf("op %d: policy Len() = %d, %d unpinned residents", i, n, unpinned)
	}
}

var propertyShapes = []struct {
	name     string
	shape    traceShape
	capBytes int64
	capBlks  int
}{
	{"mixed", traceShape{n: 6000, universe: 300, unit: 4096, mixed: true, pins: true, forgets: true}, 120 * 4096, 0},
	{"unit_pins", traceShape{n: 6000, universe: 200, unit: 1, pins: true, forgets: true}, 40, 40},
	{"tight", traceShape{n: 3000, universe: 50, unit: 4096, mixed: true, pins: true}, 12 * 4096, 0},
	{"sequences", traceShape{n: 6000, universe: 400, unit: 4096, mixed: true, pins: true, seqs: true}, 48 * 4096, 0},
	{"sequences_unit", traceShape{n: 6000, universe: 300, unit: 1, forgets: true, seqs: true}, 32, 32},
}

func TestPropertiesAllPolicies(t *testing.T) {
	for _, info := range List() {
		t.Run(info.Name, func(t *testing.T) {
			for _, ps := range propertyShapes {
				for seed := uint64(1); seed <= 2; seed++ {
					ops := genTrace(seed, ps.shape)
					env := Env{CapacityBytes: ps.capBytes, CapacityBlocks: ps.capBlks, Seed: int64(seed)}
					a := replayProps(t, info, env, ps.capBytes, ops)
					b := replayProps(t, info, env, ps.capBytes, ops)
					if a != b {
						t.Fatalf("%s seed %d: two fresh instances differ: %+v vs %+v", ps.name, seed, a, b)
					}
				}
			}
		})
	}
}

func TestBeladyNeverMissesMore(t *testing.T) {
	bel, err := Lookup("belady")
	if err != nil {
		t.Fatal(err)
	}
	shapes := []struct {
		universe, capacity int
	}{{64, 8}, {200, 32}, {1000, 100}}
	for _, sh := range shapes {
		for seed := uint64(1); seed <= 3; seed++ {
			ops := genTrace(seed, traceShape{n: 8000, universe: sh.universe, unit: 1})
			env := Env{CapacityBytes: int64(sh.capacity), CapacityBlocks: sh.capacity, Seed: int64(seed)}
			opt := replayProps(t, bel, env, int64(sh.capacity), ops)
			for _, info := range List() {
				if info.Offline {
					continue
				}
				got := replayProps(t, info, env, int64(sh.capacity), ops)
				if seed == 1 {
					t.Logf("universe %d capacity %d: %s %d misses, belady %d", sh.universe, sh.capacity, info.Name, got.misses, opt.misses)
				}
				if got.misses < opt.misses {
					t.Errorf("universe %d capacity %d seed %d: %s has %d misses, belady %d",
						sh.universe, sh.capacity, seed, specFor(info), got.misses, opt.misses)
				}
			}
		}
	}
}
