package policy

import "errors"

// Time is a logical clock. The simulator uses the trace step; the daemon
// uses nanoseconds since it started. Policies only compare and subtract
// times, so any monotonic unit works.
type Time = int64

// BlockID names a tracked KV block. The caller assigns IDs; they are unique
// among the blocks a policy tracks at one time and may be reused after
// Forget.
type BlockID = uint64

// Never is the Next time of a block that will not be accessed again.
const Never Time = 1<<63 - 1

// Priority orders demotion: low-priority blocks are demoted first.
type Priority uint8

// Priorities of blocks.
const (
	PriorityLow    Priority = 0
	PriorityNormal Priority = 1
	PriorityHigh   Priority = 2
)

// Class is the KV role of a block. Classes only move toward eviction:
// think_active -> think_complete -> freed. A touch reorders blocks within a
// class and never promotes across classes.
type Class uint8

// Block classes, in the order tiered_classes evicts them (lowest rank
// first). ClassNone is an unclassified block and ranks with think_active.
const (
	ClassNone Class = iota
	ClassThinkComplete
	ClassThinkActive
	ClassOutputCritical
)

var classNames = [...]string{"none", "think_complete", "think_active", "output_critical"}

// String returns the class name used in configs, traces and the API.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "unknown"
}

// Rank orders classes for eviction: a lower rank is evicted first.
func (c Class) Rank() int {
	switch c {
	case ClassThinkComplete:
		return 0
	case ClassNone, ClassThinkActive:
		return 1
	default:
		return 2
	}
}

// ParseClass parses a class name as printed by Class.String.
func ParseClass(s string) (Class, error) {
	for i, n := range classNames {
		if n == s {
			return Class(i), nil
		}
	}
	return 0, errors.New("unknown class " + `"` + s + `"` +
		" (want none, think_complete, think_active or output_critical)")
}

// Meta is what policies may know about a block besides its accesses.
// Its fields are ordered by size, largest first, so that it has no
// padding (48 bytes instead of 56 in declaration-by-topic order): every
// tracked block has a Meta, in its Block. The order has no other meaning.
type Meta struct {
	Size     int64    // bytes in the fast tier
	Lifetime float64  // estimated remaining lifetime in Time units; <= 0 unknown
	Seq      uint64   // sequence (request) the block belongs to
	Tenant   uint32   // tenant index; names are mapped by the caller
	RefCount int32    // sequences sharing the block (shared prefixes > 1)
	Pos      int32    // index of the block within its sequence
	SeqLen   int32    // current sequence length in blocks
	MaxLen   int32    // maximum sequence length in blocks; 0 unknown
	Class    Class    // KV role
	Priority Priority // 0 low, 1 normal, 2 high
	Pinned   bool     // never leaves the fast tier
}

// Block is a tracked block. The caller owns it and keeps the pointer stable
// from the first event until Forget, so policies may keep it and read its
// current Meta when they choose victims. Next is set by an oracle (the
// simulator) before each Access: the time of the block's next access, or
// Never; online callers leave it zero.
//
// A Block also holds an unexported slot where a policy tracking it keeps
// its per-block state, sparing a map lookup per event (see slot.go). So
// the caller changes a tracked block's fields one by one (b.Meta = m) and
// never overwrites the whole struct (*b = Block{...}) before Forget: that
// would hide the block from the policy holding the slot.
type Block struct {
	ID   BlockID
	Meta Meta
	Next Time
	slot any // policy state; see slot.go
}

// Policy chooses victims among the blocks resident in the fast tier.
//
// Admit, Evict and Forget are only called for blocks in the right state:
// Admit for a block not resident, Evict for a resident one, Forget for any
// block the policy has seen. Access may be called for resident and
// non-resident blocks, before Admit on a miss. Pinned blocks are never
// admitted through a Set; a policy may assume every resident block it holds
// is a candidate. Every method is O(1) or O(log n) in the blocks tracked.
type Policy interface {
	// Access records that b was read or written at now.
	Access(b *Block, now Time)
	// Admit records that b entered the fast tier.
	Admit(b *Block, now Time)
	// Evict records that b left the fast tier (it stays tracked, so a
	// policy may remember it as a ghost).
	Evict(b *Block, now Time)
	// Forget drops every trace of b: the block was freed.
	Forget(b *Block)
	// Victim returns the resident block to evict next without evicting it,
	// or false when the policy holds no resident block.
	Victim(now Time) (*Block, bool)
	// Len returns the number of resident blocks the policy holds.
	Len() int
}

// Updater is implemented by policies that react when the metadata of a
// tracked block changes without an access: a class demotion
// (think_active -> think_complete), a priority or lifetime change, a
// sequence that grew. Set.Update calls it after b.Meta holds the new
// metadata; old is the metadata before. It is O(1) or O(log n) like every
// other event. Wrappers forward it to their inner policy.
type Updater interface {
	Update(b *Block, old Meta, now Time)
}

// Sentinel errors.
var (
	// ErrUnknownPolicy is returned for a policy name that is not registered.
	ErrUnknownPolicy = errors.New("unknown policy")
	// ErrBadParam is returned for a malformed or unknown policy parameter.
	ErrBadParam = errors.New("bad policy parameter")
	// ErrOffline is returned when an offline policy (one that needs the
	// future, such as belady) is used where only the past is known.
	ErrOffline = errors.New("policy needs the future")
)
