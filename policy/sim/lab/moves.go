package lab

import (
	"fmt"

	"github.com/kvtier/kvtier/policy/sim"
)

// moveLog sends a run's page moves to a sim.MoveLog (Config.Moves): the
// same records kvtier's simulator writes (sim.Move), so one move log
// format serves both models. In the lab model a cold page enters the
// slowest tier (a miss from -1) and is promoted from there (a miss from
// that tier), every tier's victim is the policy's (evict) unless
// Model.LRUBelow (cascade below tier 0), and the last tier's victim
// leaves the hierarchy (drop).
type moveLog struct {
	log           sim.MoveLog
	policy, trace string
}

// runName names a run's trace in its moves: the workload, scenario,
// quantisation and seed, since a grid replays each workload many times.
func runName(c Config) string {
	return fmt.Sprintf("%s/%s/%s/seed=%d", c.Trace.Name, c.Scenario, c.Quant, c.Seed)
}

// move records one move of page at the engine's current step.
func (e *engine) move(from, to, page int, size int64, reason sim.MoveReason) {
	if e.moves.log == nil {
		return
	}
	e.moves.log.Move(sim.Move{Policy: e.moves.policy, Trace: e.moves.trace, Step: int64(e.step),
		Block: uint64(page), From: from, To: to, Bytes: size, Reason: reason})
}

// evictReason is why tier t's victim moves on: the policy's choice, a
// cascade of sim's LRU lower tiers (Model.LRUBelow), or a drop out of the
// last tier.
func (e *engine) evictReason(t int) sim.MoveReason {
	switch {
	case t+1 >= len(e.tiers):
		return sim.MoveDrop
	case t > 0 && e.model.LRUBelow:
		return sim.MoveCascade
	}
	return sim.MoveEvict
}
