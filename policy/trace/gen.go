package trace

import (
	"io"

	"github.com/kvtier/kvtier/policy"
)

// gen is the state every generator shares: the parameters and the step
// counter.
type gen struct {
	p WorkloadParams
	t int64 // accesses emitted so far; the next access's Time
}

// pageScalars returns the scalars of page key: Scalars +/- Jitter, drawn
// from a hash of the seed and the key so that no table is kept.
func (g *gen) pageScalars(key uint64) int64 {
	span := uint64(2*g.p.Jitter + 1)
	h := mix64(uint64(g.p.Seed)*0xa0761d6478bd642f ^ mix64(key+0x51ed27))
	return int64(g.p.Scalars) + int64(h%span) - int64(g.p.Jitter)
}

// pageBytes returns the fp16 size of page key.
func (g *gen) pageBytes(key uint64) int64 { return 2 * g.pageScalars(key) }

// baseMeta is the metadata of an unshared block of normal priority.
func (g *gen) baseMeta(key uint64) policy.Meta {
	return policy.Meta{Size: g.pageBytes(key), Priority: policy.PriorityNormal, RefCount: 1}
}

// done reports whether every access has been emitted.
func (g *gen) done() bool { return g.t >= int64(g.p.Steps) }

// access returns an access record at the current step and advances it.
func (g *gen) access(block uint64, write bool, m policy.Meta) Record {
	r := Record{Op: OpAccess, Time: g.t, Block: block, Write: write, Meta: m}
	g.t++
	return r
}

// stepFunc is a generator that emits exactly one access per step.
type stepFunc struct {
	gen
	step func(g *gen) Record
}

func (s *stepFunc) Next() (Record, error) {
	if s.done() {
		return Record{}, io.EOF
	}
	return s.step(&s.gen), nil
}
