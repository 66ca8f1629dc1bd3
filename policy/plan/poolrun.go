package plan

// AddRunToPool counts blocks more fast blocks, of bytes in all, the
// largest of maxSize bytes, into pl: what blocks calls of AddToPool would
// count, in one call. The daemon pools a region's run of untouched fast
// blocks between two pinned ranges at once (its registration costs per
// run, not per block). blocks 0 counts nothing.
func (p *Planner) AddRunToPool(pl *Pool, blocks int, bytes, maxSize int64) {
	if blocks <= 0 {
		return
	}
	pl.blocks += blocks
	pl.bytes += bytes
	pl.maxSize = max(pl.maxSize, maxSize)
	p.used += bytes
	pl.ten.used += bytes
	pl.ten.fast += blocks
	pl.ten.blocks += blocks
}
