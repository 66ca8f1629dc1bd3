package daemon

import (
	"context"
	"sync/atomic"
	"time"
)

// The systemd watchdog is petted from its own goroutine (watchdog), not
// from the epoch loop's select: an epoch that waits for d.mu or runs its
// moves would otherwise delay the pings, and a long but healthy epoch
// (or a registration's lock holds) could get the daemon killed. The pings
// still say that the loop is alive: the loop records in a heartbeat when
// an epoch runs, and the watchdog pings only while no epoch has run for
// longer than watchdogEpochs epochs (and than one watchdog interval,
// half of systemd's WatchdogSec, so that short epochs do not make a busy
// host look stalled). An epoch runs a decision and moves bounded by the
// move deadline (at most an epoch), so one that runs four epochs is stuck
// (d.mu never released, a syscall that never returns): systemd then sees
// no ping and restarts the daemon. Between epochs the loop only waits
// for its timer, which always fires.

// watchdogEpochs is how many epochs an epoch may run before the loop
// counts as stalled.
const watchdogEpochs = 4

// heartbeat is what the epoch loop tells the watchdog. Its fields are
// atomic: the watchdog never takes d.mu.
type heartbeat struct {
	busySince atomic.Int64 // Unix ns when the running epoch began; 0 between epochs
	epoch     atomic.Int64 // the epoch's length in ns
}

// busy records that an epoch began at start.
func (h *heartbeat) busy(start time.Time) { h.busySince.Store(start.UnixNano()) }

// idle records that no epoch runs and that the next ones last epoch.
func (h *heartbeat) idle(epoch time.Duration) {
	h.epoch.Store(int64(epoch))
	h.busySince.Store(0)
}

// stalled returns how long the running epoch has run at now and whether
// that is longer than watchdogEpochs epochs and than floor.
func (h *heartbeat) stalled(now time.Time, floor time.Duration) (time.Duration, bool) {
	since := h.busySince.Load()
	if since == 0 {
		return 0, false
	}
	ran := now.Sub(time.Unix(0, since))
	return ran, ran > max(watchdogEpochs*time.Duration(h.epoch.Load()), floor)
}

// watchdog sends WATCHDOG=1 to systemd every iv (0: the watchdog is off)
// until ctx is done, unless the epoch loop is stalled (heartbeat.stalled),
// which it logs once a stall.
func (d *Daemon) watchdog(ctx context.Context, iv time.Duration) {
	if iv <= 0 {
		return
	}
	t := time.NewTicker(iv)
	defer t.Stop()
	warned := false
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if ran, stuck := d.beat.stalled(now, iv); stuck {
				if !warned {
					d.log.Error("the epoch loop is stalled: not petting the systemd watchdog",
						"epoch_running_for", ran.Round(time.Millisecond))
					warned = true
				}
				continue
			}
			warned = false
			_ = d.opts.Notifier.Notify("WATCHDOG=1")
		}
	}
}
