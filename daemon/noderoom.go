package daemon

import "github.com/kvtier/kvtier/numa"

// The fast node's room. An operator's fast_bytes budget bounds what kvtier
// keeps in the fast tier, but the node itself may hold less: first touch
// fills it, and the engine and everything else allocate there too. Every
// epoch the planner's capacity is capped at what the node can hold: the
// tracked blocks already there plus the room left on the node, so that
// promotions go into free room only while there is some and then displace
// colder blocks (swaps), never running the node into its watermarks,
// where move_pages fails with ENOMEM. The room never goes below zero:
// when other memory fills the node, kvtier does not demote to make room
// for it (the kernel places such allocations on the next node; a process
// that starts and exits, such as the CLI, would otherwise cost a
// demotion and a promotion each time). With fast_bytes = 0 (the default
// config) the node's room is the only limit.
//
// The room is what /proc/zoneinfo leaves above each zone's high watermark
// and its protection against movable allocations (numa.NodeRoom), less
// one of the largest blocks; where zoneinfo cannot be read, the node's
// MemFree less nodeReserve. MemFree alone overstates it: in a 6.12 guest
// with 384 MiB on node 0, move_pages to node 0 failed with ENOMEM at
// 17 MiB free, 15 MiB of it in the DMA zone that user pages cannot have.

// nodeReserve is the free memory kvtier leaves on the fast node when only
// its MemFree is known: two of the largest blocks, at least 4 MiB and
// 0.5% of the node.
func (d *Daemon) nodeReserve() int64 {
	r := max(2*d.maxBlockSize(), 4<<20)
	for _, n := range d.topo.Nodes {
		if n.ID == d.fastNode {
			r = max(r, n.MemTotal/200)
		}
	}
	return int64(r)
}

// nodeRoom is the fast node's room for promotions now; ok is false when
// neither zoneinfo nor the node's meminfo can be read.
func (d *Daemon) nodeRoom() (room int64, ok bool) {
	if r, err := numa.NodeRoom(d.opts.ProcRoot, d.fastNode); err == nil {
		return int64(r) - int64(d.maxBlockSize()), true
	}
	free, err := d.topo.NodeFree(d.fastNode)
	if err != nil {
		return 0, false
	}
	return int64(free) - d.nodeReserve(), true
}

// roomEpochs is how often, in epochs, the fast node's room is read. A
// read of /proc/zoneinfo costs about 5 ms of the daemon's time under
// emulation (TCG), as much as the rest of a quiet epoch. In between, the
// room last read is carried forward less what kvtier moved into the node
// since and plus what it moved out: kvtier's own moves, the bulk of the
// change, are counted exactly; other allocations are seen at the next
// read, and a node that fills sooner fails a move with ENOMEM, which
// backs promotions off (backoff.go).
const roomEpochs = 4

// roomCache is the fast node's room as last read.
type roomCache struct {
	room  int64  // the room when read
	ok    bool   // the read succeeded
	next  uint64 // the planner epoch of the next read
	net   int64  // bytes kvtier moved into the node since the read, less those it moved out
	valid bool   // read at least once
}

// moved counts a mover run's pages against the room.
func (c *roomCache) moved(rep *numa.Report) {
	if rep != nil {
		c.net += int64(rep.PagesToFast-rep.PagesToSlow) * int64(numa.PageSize)
	}
}

// currentRoom is the room now: read every roomEpochs epochs, else carried
// forward.
func (d *Daemon) currentRoom() (int64, bool) {
	c := &d.room
	if e := d.planner.Epoch(); !c.valid || e >= c.next {
		c.room, c.ok = d.nodeRoom()
		c.net, c.next, c.valid = 0, e+roomEpochs, true
	}
	return c.room - c.net, c.ok
}

// nodeRoomLocked caps the planner's fast tier at the fast node's room for
// the next plan; when it cannot be read, only the budget applies.
func (d *Daemon) nodeRoomLocked() {
	if !d.moving {
		return
	}
	room, ok := d.currentRoom()
	if !ok {
		d.planner.SetFastLimit(0)
		return
	}
	// At least a byte: 0 would lift the limit.
	d.planner.SetFastLimit(max(d.planner.FastBytes()+max(room, 0), 1))
}
