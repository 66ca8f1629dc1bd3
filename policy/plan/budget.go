package plan

// budget is the remaining migration budget of one plan.
type budget struct {
	bytes, blocks, pages int64
	limB, limN, limP     bool
	pageSize             int64
}

func (p *Planner) newBudget() budget {
	b := p.cfg.Budget
	if p.moveCap > 0 && (b.MoveBytes == 0 || p.moveCap < b.MoveBytes) {
		b.MoveBytes = p.moveCap
	}
	return budget{
		bytes: b.MoveBytes, blocks: int64(b.MoveBlocks), pages: int64(b.MovePages),
		limB: b.MoveBytes > 0, limN: b.MoveBlocks > 0, limP: b.MovePages > 0,
		pageSize: p.cfg.pageSize(),
	}
}

func (b *budget) pagesOf(bytes int64) int64 { return (bytes + b.pageSize - 1) / b.pageSize }

// fits reports whether bytes in n blocks fit the remaining budget.
func (b *budget) fits(bytes, n int64) bool {
	return (!b.limB || bytes <= b.bytes) && (!b.limN || n <= b.blocks) &&
		(!b.limP || b.pagesOf(bytes) <= b.pages)
}

// take takes bytes in n blocks from the budget. Pages are counted only
// when they are limited: pagesOf divides, and take runs once a victim.
func (b *budget) take(bytes, n int64) {
	b.bytes -= bytes
	b.blocks -= n
	if b.limP {
		b.pages -= b.pagesOf(bytes)
	}
}

// give returns what take took.
func (b *budget) give(bytes, n int64) {
	b.bytes += bytes
	b.blocks += n
	if b.limP {
		b.pages += b.pagesOf(bytes)
	}
}

// most bounds the promotions among n candidates that the remaining
// budget can select: each one takes at least a block and a page.
func (b *budget) most(n int) int {
	if b.limN {
		n = int(min(int64(n), max(b.blocks, 0)))
	}
	if b.limP {
		n = int(min(int64(n), max(b.pages, 0)))
	}
	return n
}

func (b *budget) empty() bool {
	return (b.limN && b.blocks <= 0) || (b.limB && b.bytes <= 0) || (b.limP && b.pages <= 0)
}
