package numa

import (
	"fmt"
	"sort"

	"golang.org/x/sys/unix"
)

// Placement is where the base pages of one address range live.
type Placement struct {
	Start uintptr `json:"start"`
	End   uintptr `json:"end"`
	// Name is the mapping's name (Mapping.Name) when the range is one
	// mapping or part of one.
	Name  string `json:"name,omitempty"`
	Pages int    `json:"pages"`
	// PerNode counts present pages by node.
	PerNode map[int]int `json:"per_node"`
	// NotPresent counts pages never touched or swapped out (ENOENT).
	NotPresent int `json:"not_present"`
	// Errnos counts pages with another status (EFAULT: unmapped or the
	// shared zero page, ...).
	Errnos map[string]int `json:"errnos,omitempty"`
	// Huge is the range's huge-page backing from smaps, when read.
	Huge *HugeBacking `json:"huge,omitempty"`
}

// Nodes returns the nodes holding pages, ascending.
func (p *Placement) Nodes() []int {
	ids := make([]int, 0, len(p.PerNode))
	for id := range p.PerNode {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// add counts one page's status.
func (p *Placement) add(s PageStatus) {
	p.Pages++
	if n, ok := s.OnNode(); ok {
		p.PerNode[n]++
		return
	}
	if s.Errno() == unix.ENOENT {
		p.NotPresent++
		return
	}
	if p.Errnos == nil {
		p.Errnos = map[string]int{}
	}
	p.Errnos[s.String()]++
}

// QueryRange reports where the base pages of [start, end) of process pid
// (0: the caller) live, with move_pages(2) in query mode, batch pages per
// call (0: DefaultBatch). Addresses are generated batch by batch, so a
// range of any size costs memory for one batch only.
//
// A transparent huge page reports each of its base pages, all on the same
// node.
func QueryRange(pid int, start, end uintptr, batch int) (Placement, error) {
	pl := Placement{Start: start, End: end, PerNode: map[int]int{}}
	if end <= start {
		return pl, fmt.Errorf("querying pid %d %#x-%#x: %w", pid, start, end, ErrBadRange)
	}
	if batch <= 0 {
		batch = DefaultBatch
	}
	ps := uintptr(PageSize)
	first := start &^ (ps - 1)
	pages := make([]uintptr, batch)
	status := make([]PageStatus, batch)
	for a := first; a < end; {
		n := 0
		for ; n < batch && a < end; n++ {
			pages[n] = a
			a += ps
		}
		if err := QueryPages(pid, pages[:n], status[:n], n); err != nil {
			return pl, fmt.Errorf("%#x-%#x: %w", start, end, err)
		}
		for _, s := range status[:n] {
			pl.add(s)
		}
	}
	return pl, nil
}

// Placement reports where the pages of [start, end) of the process live,
// checking that the process is still the one the handle names before and
// after the query.
func (p *Process) Placement(start, end uintptr, batch int) (Placement, error) {
	if err := p.alive(); err != nil {
		return Placement{}, err
	}
	pl, err := QueryRange(p.pid, start, end, batch)
	if err != nil {
		return pl, err
	}
	return pl, p.alive()
}
