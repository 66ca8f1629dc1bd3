package sim

// idMap numbers block keys densely in order of first sight: an
// open-addressing hash table with linear probing, one 16-byte slot per
// key and value, at most 3/4 full. It holds no pointers, so the garbage
// collector never scans it, and a lookup touches one cache line in the
// common case.
type idMap struct {
	slots []idSlot // a power of two of them
	shift uint     // 64 - log2(len(slots))
	n     uint32   // keys held
}

// idSlot holds a key and its dense index plus one; 0 marks a free slot.
type idSlot struct {
	key uint64
	id  uint32
}

// newIDMap returns a map sized for about hint keys.
func newIDMap(hint int) *idMap {
	size := 1 << 10
	for size*3/4 < hint {
		size <<= 1
	}
	m := &idMap{}
	m.alloc(size)
	return m
}

func (m *idMap) alloc(size int) {
	m.slots = make([]idSlot, size)
	m.shift = 64
	for s := size; s > 1; s >>= 1 {
		m.shift--
	}
}

// hashKey spreads a key over the table (Fibonacci hashing: the high bits
// of the product by 2^64 over the golden ratio).
func (m *idMap) hashKey(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> m.shift }

// id returns the dense index of key, giving it the next one (Len before
// the call) at its first sight.
func (m *idMap) id(key uint64) uint32 {
	mask := uint64(len(m.slots) - 1)
	for i := m.hashKey(key); ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.id == 0 {
			if int(m.n+1)*4 > len(m.slots)*3 {
				m.grow()
				return m.id(key)
			}
			m.n++
			s.key, s.id = key, m.n
			return m.n - 1
		}
		if s.key == key {
			return s.id - 1
		}
	}
}

// grow doubles the table.
func (m *idMap) grow() {
	old := m.slots
	m.alloc(2 * len(old))
	mask := uint64(len(m.slots) - 1)
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := m.hashKey(s.key)
		for m.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		m.slots[i] = s
	}
}

// Len returns the number of keys numbered.
func (m *idMap) Len() int { return int(m.n) }
