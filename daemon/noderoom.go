package daemon

// The fast node's room. An operator's fast_bytes budget bounds what kvtier
// keeps in the fast tier, but the node itself may hold less: first touch
// fills it, and the engine and everything else allocate there too. Every
// epoch the planner's capacity is capped at what the node can hold: the
// tracked blocks already there plus the node's free memory less a reserve
// (nodeReserve), so promotions never run the node into its watermarks,
// where move_pages fails with ENOMEM, and when other memory fills the
// node, the tier gives room back, coldest blocks first. With fast_bytes
// = 0 (the default config) the node's room is the only limit.

// nodeReserve is the free memory kvtier leaves on the fast node: two of
// the largest blocks, at least 4 MiB and 0.5% of the node.
func (d *Daemon) nodeReserve() int64 {
	r := max(2*d.maxBlockSize(), 4<<20)
	for _, n := range d.topo.Nodes {
		if n.ID == d.fastNode {
			r = max(r, n.MemTotal/200)
		}
	}
	return int64(r)
}

// nodeRoomLocked caps the planner's fast tier at the fast node's room for
// the next plan; when the node's free memory cannot be read, only the
// budget applies.
func (d *Daemon) nodeRoomLocked() {
	if !d.moving {
		return
	}
	free, err := d.topo.NodeFree(d.fastNode)
	if err != nil {
		d.planner.SetFastLimit(0)
		return
	}
	d.planner.SetFastLimit(d.planner.FastBytes() + int64(free) - d.nodeReserve())
}
