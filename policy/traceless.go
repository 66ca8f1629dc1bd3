package policy

// Traceless is implemented by policies that keep nothing of a block they
// no longer hold (no ghost, no count, no clock of theirs advanced) and
// whose order is as it was after a block is admitted, without an access,
// and evicted at once: a caller about to do both (the planner demoting a
// pooled block it has just tracked) may skip them. TestTraceless holds
// every implementation to that.
type Traceless interface {
	Policy
	traceless()
}

func (*LRU) traceless()  {}
func (*FIFO) traceless() {}
