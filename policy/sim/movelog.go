package sim

// MoveReason says why a block moved between tiers.
type MoveReason uint8

// Move reasons.
const (
	// MoveMiss: an access outside tier 0 brought the block in (from a
	// lower tier, or from outside the hierarchy on a cold miss).
	MoveMiss MoveReason = iota
	// MoveEvict: the policy chose the block as tier 0's victim.
	MoveEvict
	// MoveCascade: a full lower tier pushed its least recent block one
	// tier down.
	MoveCascade
	// MoveDrop: the last tier was full and the block left the hierarchy.
	MoveDrop
	// MovePrefetch: prefetch promoted the block after a miss.
	MovePrefetch
	// MoveFree: the trace freed the block.
	MoveFree
)

var moveReasons = [...]string{"miss", "evict", "cascade", "drop", "prefetch", "free"}

// String returns the reason's name as the move log writes it.
func (r MoveReason) String() string {
	if int(r) < len(moveReasons) {
		return moveReasons[r]
	}
	return "unknown"
}

func cascadeReason(below bool) MoveReason {
	if below {
		return MoveCascade
	}
	return MoveDrop
}

// Move is one block's move between tiers.
type Move struct {
	Policy, Trace string
	// Step is the index of the access being served (a free: of the last
	// access before it).
	Step int64
	// Block is the block's key in the trace.
	Block uint64
	// From and To are tier indices, 0 the fastest; -1 is outside the
	// hierarchy (a cold miss comes from -1, a drop or free goes to -1).
	From, To int
	Bytes    int64
	Reason   MoveReason
}

// MoveLog receives the moves of a run in the order they happen. Runs in
// parallel (CompareWith) share it: it must be safe for concurrent use.
type MoveLog interface {
	Move(m Move)
}

// logMove reports x's move from tier from to its current tier.
func (e *engine) logMove(step int64, x *blk, from int8, why MoveReason) {
	e.moves.Move(Move{Policy: e.cfg.Policy, Trace: e.trace, Step: step, Block: e.keys[x.b.ID],
		From: int(from), To: int(x.tier), Bytes: x.b.Meta.Size, Reason: why})
}
