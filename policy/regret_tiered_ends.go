package policy

// rtEnds keeps the records at the two ends of an rtList that the density
// ranking looks at (rtDensityScan from each end), so that densityVictim
// reads them from two small arrays instead of following a link per
// record: front[k] is the k-th record from the head and back[k] the k-th
// from the tail, for k < min(len, rtDensityScan). A list of up to
// rtDensityScan records is in both, in opposite orders. pushFront and
// remove keep them in O(rtDensityScan) without a cache miss: a removal
// from a full end refills it with the neighbour of its last record.
type rtEnds struct {
	front, back [rtDensityScan]uint32
}

// pushed records i, just pushed at the front of a list that now holds n.
func (e *rtEnds) pushed(i uint32, n int) {
	copy(e.front[1:], e.front[:rtDensityScan-1])
	e.front[0] = i
	if n <= rtDensityScan {
		e.back[n-1] = i
	}
}

// removing takes i out of the ends of l, which holds n records with i,
// before l unlinks it.
func (e *rtEnds) removing(l *rtList, t *rtTable, i uint32, n int) {
	if n <= rtDensityScan {
		dropEnd(e.front[:n], i)
		dropEnd(e.back[:n], i)
		return
	}
	// Past a full end is a record more (n > rtDensityScan): the neighbour
	// of the end's last record, read before i is unlinked.
	if k := endIndex(&e.front, i); k >= 0 {
		next := l.link(t, e.front[rtDensityScan-1]).next
		copy(e.front[k:], e.front[k+1:])
		e.front[rtDensityScan-1] = next
		if n > 2*rtDensityScan { // the ends are apart: i is in one only
			return
		}
	}
	if k := endIndex(&e.back, i); k >= 0 {
		prev := l.link(t, e.back[rtDensityScan-1]).prev
		copy(e.back[k:], e.back[k+1:])
		e.back[rtDensityScan-1] = prev
	}
}

// endIndex returns the position of i in end, or -1.
func endIndex(end *[rtDensityScan]uint32, i uint32) int {
	for k, j := range end {
		if j == i {
			return k
		}
	}
	return -1
}

// dropEnd removes i, if there, from end, a whole short list, shifting
// the records after it.
func dropEnd(end []uint32, i uint32) {
	for k, j := range end {
		if j == i {
			copy(end[k:], end[k+1:])
			end[len(end)-1] = 0
			return
		}
	}
}

// scan calls s.consider on the records densityVictim looks at in l, in
// the order of a walk: from the tail, the whole list when it is at most
// twice rtDensityScan long, else rtDensityScan from the tail then
// rtDensityScan from the head, newest first. It stops, reporting true,
// when consider does.
func (e *rtEnds) scan(s *rtScan, n int) bool {
	recs := s.p.tab.recs
	if n <= 2*rtDensityScan {
		for _, i := range e.back[:min(n, rtDensityScan)] {
			if s.consider(&recs[i]) {
				return true
			}
		}
		for k := n - rtDensityScan - 1; k >= 0; k-- {
			if s.consider(&recs[e.front[k]]) {
				return true
			}
		}
		return false
	}
	for _, i := range e.back {
		if s.consider(&recs[i]) {
			return true
		}
	}
	for _, i := range e.front {
		if s.consider(&recs[i]) {
			return true
		}
	}
	return false
}
