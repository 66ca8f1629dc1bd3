// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* kvtier's access samplers. Every program resolves an access to
 * (region, block) through the watch list and counts it in kvtier.h's
 * count map of the current epoch. */
#include "kvtier.h"
#include <bpf/bpf_core_read.h>

char __license[] SEC("license") = "Dual BSD/GPL";

/* ---- perf and sw-page-faults: perf_event programs ---- */

/* The perf_event program context (uapi struct bpf_perf_event_data: the
 * user pt_regs, then sample_period and addr). bpf_user_pt_regs_t is
 * struct pt_regs on x86_64 (21 registers) and struct user_pt_regs on arm64
 * (regs[31], sp, pc, pstate: 34). */
#if defined(__TARGET_ARCH_arm64)
#define USER_REGS 34
#elif defined(__TARGET_ARCH_x86)
#define USER_REGS 21
#else
#error "kvtier's samplers are built for amd64 and arm64 only"
#endif

struct perf_ctx {
	__u64 regs[USER_REGS];
	__u64 sample_period;
	__u64 addr;
};

/* KIND_READ for PEBS load sampling, else KIND_UNKNOWN; set by the loader. */
volatile const __u32 perf_kind = KIND_UNKNOWN;

SEC("perf_event")
int on_perf(struct perf_ctx *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	record(tgid, ctx->addr, 1, perf_kind);
	return 0;
}

/* ---- fault: exceptions:page_fault_user as a raw tracepoint ----
 * (x86 only: arm64 kernels have no such tracepoint; the program is built
 * for both, the Go loader registers "fault" on amd64 only)
 * TP_PROTO(unsigned long address, struct pt_regs *regs, unsigned long error_code) */
SEC("raw_tracepoint/page_fault_user")
int on_fault(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 err = ctx->args[2];
	record(tgid, ctx->args[0], 1, (err & 2) ? KIND_WRITE : KIND_READ);
	return 0;
}

/* ---- uprobe: application hints ----
 * void kvtier_hint_access(const void *addr, size_t len)
 *
 * HINT_C0/1: the first two integer arguments in the C calling convention;
 * HINT_GO0/1: in Go's register ABI. amd64: RDI, RSI (C) and RAX, RBX (Go),
 * read through CO-RE from the kernel's struct pt_regs. arm64: X0, X1 in
 * both, user_pt_regs.regs[0..1], which the kernel's struct pt_regs starts
 * with (a stable uapi layout, no CO-RE needed). */
#if defined(__TARGET_ARCH_arm64)
struct pt_regs;
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
#define ARM64_X(ctx, n) (((struct user_pt_regs *)(ctx))->regs[n])
#define HINT_C0(ctx) ARM64_X(ctx, 0)
#define HINT_C1(ctx) ARM64_X(ctx, 1)
#define HINT_GO0(ctx) ARM64_X(ctx, 0)
#define HINT_GO1(ctx) ARM64_X(ctx, 1)
#else
struct pt_regs {
	unsigned long bx;
	unsigned long ax;
	unsigned long si;
	unsigned long di;
} __attribute__((preserve_access_index));
#define HINT_C0(ctx) ((ctx)->di)
#define HINT_C1(ctx) ((ctx)->si)
#define HINT_GO0(ctx) ((ctx)->ax)
#define HINT_GO1(ctx) ((ctx)->bx)
#endif

SEC("uprobe")
int on_hint_c(struct pt_regs *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	record(tgid, HINT_C0(ctx), HINT_C1(ctx), KIND_UNKNOWN);
	return 0;
}

/* Go's register ABI: the first integer arguments (RAX, RBX on amd64; R0,
 * R1 on arm64). */
SEC("uprobe")
int on_hint_go(struct pt_regs *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	record(tgid, HINT_GO0(ctx), HINT_GO1(ctx), KIND_UNKNOWN);
	return 0;
}

/* ---- damon: damon:damon_aggregated as a raw tracepoint ---- */

struct damon_addr_range {
	unsigned long start;
	unsigned long end;
} __attribute__((preserve_access_index));

struct damon_region {
	struct damon_addr_range ar;
	unsigned int nr_accesses;
} __attribute__((preserve_access_index));

/* DAMON target index -> tgid, written by the loader in the order it wrote
 * the kdamond's targets. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} damon_targets SEC(".maps");

/* Positions of target_id and the damon_region pointer among the
 * tracepoint's arguments (they moved between kernel versions); the loader
 * reads them from the kernel's BTF. */
volatile const __u32 damon_tid_arg = 0;
volatile const __u32 damon_region_arg = 1;

/* The blocks of one watched region that a DAMON region overlaps. */
struct damon_blocks {
	__u64 first;
	__u64 n;   /* nr_accesses */
	__u64 now;
	__u32 id;
	int kind;  /* KIND_SPREAD when the DAMON region covers several blocks */
};

static long damon_block(__u64 i, struct damon_blocks *b)
{
	count_block(b->id, b->first + i, b->n, b->kind, b->now);
	return 0;
}

/* damon_overlap adds n accesses to the blocks of region i of p's list
 * that [start, end) overlaps. It returns 1 (stop) when the region starts
 * at or above end, else 0. A global function, as kvtier.h's. */
__attribute__((noinline)) int damon_overlap(struct watch_proc *p, __u32 i, __u64 start, __u64 end, __u64 n)
{
	struct watch_region *r = region_at(p, i);
	if (!r)
		return 1;
	__u64 rs = r->start, re = r->end, bs = r->block_size;
	if (rs >= end)
		return 1;
	if (bs == 0 || re <= start)
		return 0;
	__u64 lo = start > rs ? start : rs;
	__u64 hi = end < re ? end : re;
	struct damon_blocks b = { .first = (lo - rs) / bs, .n = n, .now = bpf_ktime_get_ns(), .id = r->id };
	__u64 nb = (hi - 1 - rs) / bs - b.first + 1;
	b.kind = (nb > 1 || start < rs || end > re) ? KIND_SPREAD : KIND_UNKNOWN;
	bpf_loop(nb, damon_block, &b, 0);
	return 0;
}

/* The walk over the watched regions from k on. */
struct damon_walk {
	__u64 start, end, n;
	__u32 tgid;
	__u32 k;  /* the first watched region that ends above start */
	__u32 nr; /* the watched regions */
	__u32 hit;
};

static long damon_region_cb(__u64 i, struct damon_walk *w)
{
	if (w->k + i >= w->nr)
		return 1;
	struct watch_proc *p = bpf_map_lookup_elem(&watch, &w->tgid);
	/* The list may have shrunk since the walk began. */
	if (!p || w->k + i >= p->n || damon_overlap(p, w->k + i, w->start, w->end, w->n))
		return 1;
	w->hit = 1;
	return 0;
}

/* damon_count adds n accesses to every watched block of process tgid
 * that [start, end) overlaps: a binary search for the first watched region
 * that ends above start, then a walk while regions start below end
 * (usually one: a DAMON region lies within one block unless DAMON merged
 * regions). */
static __always_inline void damon_count(__u32 tgid, __u64 start, __u64 end, __u64 n)
{
	struct watch_proc *p = bpf_map_lookup_elem(&watch, &tgid);
	if (!p)
		return;
	stat_add(STAT_EVENTS, 1);
	if (n == 0 || end <= start)
		return;
	struct damon_walk w = { .start = start, .end = end, .n = n, .tgid = tgid, .nr = p->n };
	w.k = first_end_above(p, w.nr, start);
	/* A constant bound (the callback stops at nr): a count that depends on
	 * k would make the verifier track k through the search. */
	bpf_loop(MAX_REGIONS, damon_region_cb, &w, 0);
	if (!w.hit)
		stat_add(STAT_OUTSIDE, 1);
}

SEC("raw_tracepoint/damon_aggregated")
int on_damon(struct bpf_raw_tracepoint_args *ctx)
{
	/* Only args[0..2]: the prototype has three or four arguments, and
	 * reading past the last one makes the attach fail. */
	__u64 a0 = ctx->args[0], a1 = ctx->args[1], a2 = ctx->args[2];
	__u32 tid = damon_tid_arg == 0 ? a0 : a1;
	struct damon_region *dr = (void *)(damon_region_arg == 1 ? a1 : a2);
	__u32 *tgid = bpf_map_lookup_elem(&damon_targets, &tid);
	if (!tgid || !*tgid)
		return 0;
	damon_count(*tgid, BPF_CORE_READ(dr, ar.start), BPF_CORE_READ(dr, ar.end), BPF_CORE_READ(dr, nr_accesses));
	return 0;
}

/* on_damon's counting without DAMON, for BPF_PROG_TEST_RUN: args are the
 * tgid, start, end and nr_accesses of a DAMON region. Never attached. */
SEC("raw_tracepoint")
int on_damon_test(struct bpf_raw_tracepoint_args *ctx)
{
	damon_count(ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3]);
	return 0;
}
