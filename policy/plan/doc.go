// Package plan is kvtier's migration planner: once per epoch it decides
// which tracked KV blocks to promote to the fast tier (DRAM) and which to
// demote to the slow tier (CXL). The daemon and the simulator's tiering
// mode run the same planner; only the sampler that feeds it and the mover
// that executes its plans differ.
//
// # Contract
//
// The caller tracks blocks (Track, Update, Untrack), reports sampled
// accesses (Access: block, count, time; Observe adds the observation
// windows and source that judge reuse) and calls Plan at the end of each
// epoch. A Plan is tentative: the caller executes its moves in
// Plan.Order (each promotion after the demotions that make its room) and
// reports every move back with Done(id, promoted, ok),
// ok saying whether the block actually moved (move_pages may fail for some
// pages). The planner's tier accounting changes only through Done, and the
// policy learns of a promotion (Admit) only when Done reports it. Choosing
// several victims needs the policy to step past each one, so a victim is
// taken out of the policy (Evict) when the plan is made; a demotion that
// Done reports as failed is admitted back. A move that is never reported
// stays pending: its block is neither a candidate nor a victim, pending
// promotions count against capacity and quotas, pending demotions count as
// freed.
//
// Fast blocks no source has seen may instead be counted in bulk into a
// Pool (OpenPool, AddToPool, TakeFromPool, ClosePool): they count in the
// tier and their tenant, and the planner demotes them before the
// victims of their bucket's policy, asking the pool's PoolSource for a
// policy.Block only for those it demotes (pool.go). Dense declares the
// ID range of a group whose IDs the caller tracks sparsely.
//
// Blocks may be untracked at any time, also while their moves are planned
// or running (a request's decode blocks are freed, a process exits).
// Untrack abandons the block's pending move: its bytes stop counting at
// once, and no later Plan lists the block, even if it was sampled in the
// epoch it was untracked. Done for the abandoned move changes nothing and
// returns ErrUntracked, which callers may ignore (errors.Is); Done for an
// ID the planner neither tracks nor has an abandoned move of returns
// ErrUnknownBlock, a caller bug.
//
// # Decisions
//
// Promotion candidates are the slow blocks sampled this epoch whose heat
// (sampled accesses, decayed by Decay per epoch) reaches PromoteMin, plus
// every pinned block found in the slow tier. They are ranked pinned first,
// then by priority, then by heat. Blocks whose class forbids promotion
// (think_complete by default: classes demote one way) and blocks moved less
// than Cooldown ago (hysteresis) are not candidates.
//
// Plan makes the decision for the whole batch in one pass. An operator's
// budget comes first: while the tier is over its capacity or a tenant over
// its quota (a budget shrank, or regions were registered fast beyond it),
// the demotions that reduce the overage get the migration budget before
// any promotion. Each tenant over its quota demotes its own blocks,
// largest overage first, then what is still over the capacity comes from
// every tenant; so an overage of N bytes is gone within ceil(N/MoveBytes)
// epochs whatever the promotion pressure. No promotion goes into a tier or
// tenant that is still over budget after those demotions.
//
// With the budget that is left, Plan selects the batch in rank order
// (bytes, blocks and pages per epoch, promotions and demotions together),
// reserving budget for the demotions each promotion makes necessary, and
// so computes the shortage: per tenant, the bytes over its fast-tier
// quota, and globally, the bytes over the fast-tier capacity. Then, for
// each tenant in the batch, its own blocks go first (quota and global
// shortage); other tenants' blocks are taken only for the global shortage
// that remains, lowest reference count first, and each affected tenant
// gets an Event. Promotions whose room could not be made are deferred,
// lowest rank first.
//
// # Buckets
//
// Each tenant has one policy instance per (priority, class rank, sharing
// level): priorities low, normal and high; class ranks think_complete,
// think_active or none, output_critical (policy.Class.Rank); reference
// counts <= 1, 2, 3-4 and 5+. A tenant's own victims come from its
// buckets lowest priority first, then lowest class rank, then unshared
// before shared, each in its policy's order, so low-priority,
// think_complete and unshared blocks leave first whatever the policy
// (classes demote one way under every policy, not only tiered_classes).
// Cross-tenant victims come lowest sharing level first, then lowest
// priority, then lowest class rank, then from the tenant holding the most
// fast-tier bytes. Pinned blocks are never given to a policy, so they
// never leave the fast tier.
//
// Update tells a block's bucket policy of a metadata change that keeps
// the block in its bucket (policy.Updater), so a policy that orders by
// metadata reorders at once, not at the block's next access; a class
// change across ranks moves the block to another bucket.
//
// # Headroom
//
// With the migration budget a plan has left after its promotions, it
// demotes blocks with no recent accesses (Headroom, keepHeadroom) until
// that share of the capacity is free, so the next promotions go into free
// room at once instead of each waiting for a victim's demotion.
//
// # Corrections from the caller
//
// SetTier corrects a block found in the other tier than reported (moved
// by someone else; the daemon's placement reconcile). SetHold stops plans
// from moving blocks in one direction while the target node is full
// (held demotions: promotions only into free room). SetMoveCap lowers the
// epoch's byte budget to what the caller's mover can execute before its
// deadline. DropTenant forgets a tenant without blocks.
//
// Reconfigure applies new budgets and a new policy without losing tracked
// blocks (the daemon's SIGHUP). The planner is pure Go, does not log and is
// not safe for concurrent use.
package plan
