package policy

// missCount counts the accesses of the last block accessed while not
// resident, so a policy that admits the block right after its misses can
// credit them (frequency-based policies count a miss as an access).
type missCount struct {
	id BlockID
	n  int64 // 0: no block pending
}

// miss counts an access of id, which is not resident; an access of another
// block restarts the count.
func (m *missCount) miss(id BlockID) {
	if m.n == 0 || m.id != id {
		m.id, m.n = id, 0
	}
	m.n++
}

// take returns the misses counted for id, 0 if none, and clears them.
func (m *missCount) take(id BlockID) int64 {
	if m.n == 0 || m.id != id {
		return 0
	}
	n := m.n
	m.n = 0
	return n
}

// reset clears the count, whichever block it was for.
func (m *missCount) reset() { m.n = 0 }

// forget clears the count if it is for id.
func (m *missCount) forget(id BlockID) {
	if m.id == id {
		m.n = 0
	}
}
