package daemon

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy/plan"
)

// Backing off from a full node. When the mover finds a node full (ENOMEM),
// the plans stop moving blocks to it (demotions to the slow node,
// promotions to the fast one: plan.Hold) for a number of epochs that
// doubles each time the node is found full again, from 2 up to
// maxBackoffEpochs. After that, the next plan tries again. The backoff
// ends when a move to the node succeeds or when its free memory (per the
// topology's sysfs) has risen by a block since it was found full. The
// reason is logged once per backoff, published as a node_full event,
// shown in status (node_backoff) and in kvtier_node_backoff_epochs.

// maxBackoffEpochs caps a full node's backoff.
const maxBackoffEpochs = 64

// nodeBackoff is the backoff state of one full node.
type nodeBackoff struct {
	level  int    // times found full in a row; backoff 2^level epochs
	epochs uint64 // the current backoff's length
	until  uint64 // planner epoch (plans made) from which moves are tried again
	free   uint64 // the node's free bytes when last found full
}

// holdLocked tells the planner which directions are held for the next
// plan, ending the backoffs of nodes whose free memory rose.
func (d *Daemon) holdLocked() {
	var h plan.Hold
	epoch := d.planner.Epoch()
	for node, b := range d.backoff {
		if epoch >= b.until {
			continue // the backoff is over: this plan tries the node again
		}
		if free, err := d.topo.NodeFree(node); err == nil && free >= b.free+d.riseBytes() {
			d.endBackoff(node, fmt.Sprintf("its free memory rose from %d to %d bytes", b.free, free))
			continue
		}
		if node == d.slowNode {
			h.Demote = true
		} else {
			h.Promote = true
		}
	}
	d.planner.SetHold(h)
}

// riseBytes is the rise in a full node's free memory that ends its
// backoff: the largest block (at least 2 MiB).
func (d *Daemon) riseBytes() uint64 { return max(2<<20, d.maxBlockSize()) }

// backoffLocked updates the backoffs after a mover run: a node found full
// backs off (longer each time), a node a move reached has room again.
func (d *Daemon) backoffLocked(moves []plannedMove, rep *numa.Report) {
	if rep == nil {
		return
	}
	full := map[int]bool{}
	for _, n := range rep.FullNodes {
		full[n] = true
		d.nodeFull(n)
	}
	for i, m := range moves {
		if i >= len(rep.Outcomes) || rep.Outcomes[i].Moved == 0 {
			continue
		}
		node := d.slowNode
		if m.promote {
			node = d.fastNode
		}
		if _, ok := d.backoff[node]; ok && !full[node] {
			d.endBackoff(node, "a move to it succeeded")
		}
	}
}

// nodeFull starts or lengthens node's backoff, and says why once.
func (d *Daemon) nodeFull(node int) {
	b := d.backoff[node]
	if b == nil {
		b = &nodeBackoff{}
		d.backoff[node] = b
	}
	b.level = min(b.level+1, 16)
	b.epochs = min(uint64(1)<<b.level, maxBackoffEpochs)
	b.until = d.planner.Epoch() + b.epochs
	b.free, _ = d.topo.NodeFree(node)
	dir := d.heldDirection(node)
	label := strconv.Itoa(node)
	d.metrics.nodeFull.WithLabelValues(label).Inc()
	d.metrics.nodeBackoff.WithLabelValues(label).Set(float64(b.epochs))
	reason := fmt.Sprintf("node %d is full (move_pages: ENOMEM): %s held for %d epochs", node, dir, b.epochs)
	d.log.Named("mover").Warn("node full (ENOMEM): backing off", "node", node, "held", dir,
		"epochs", b.epochs, "times_full", b.level, "free_bytes", b.free)
	d.events.publish(api.Event{Type: api.EventNodeFull, Node: &node, Reason: reason})
}

// endBackoff ends node's backoff.
func (d *Daemon) endBackoff(node int, why string) {
	delete(d.backoff, node)
	d.metrics.nodeBackoff.WithLabelValues(strconv.Itoa(node)).Set(0)
	d.log.Named("mover").Info("node has room again; moves to it resume", "node", node,
		"resumed", d.heldDirection(node), "because", why)
}

// heldDirection names the moves a backoff of node holds.
func (d *Daemon) heldDirection(node int) string {
	if node == d.slowNode {
		return "demotions"
	}
	return "promotions"
}

// backoffStatus is the nodes backing off, for status.
func (d *Daemon) backoffStatus() []api.NodeBackoff {
	var out []api.NodeBackoff
	epoch := d.planner.Epoch()
	for node, b := range d.backoff {
		nb := api.NodeBackoff{Node: node, Held: d.heldDirection(node), Epochs: int(b.epochs),
			TimesFull: b.level, FreeBytes: b.free}
		if b.until > epoch {
			nb.EpochsLeft = int(b.until - epoch)
		}
		out = append(out, nb)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}
