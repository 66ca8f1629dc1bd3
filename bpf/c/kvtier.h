/* Shared machinery of kvtier's samplers: the watch list, the two-epoch
 * per-block count maps and the statistics. */
#pragma once

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_REGIONS 32   /* bpf.MaxRegionsPerProcess */
#define MAX_SPAN 64      /* blocks counted per hint call */

enum kind { KIND_UNKNOWN = 0, KIND_READ = 1, KIND_WRITE = 2 };

enum stat { STAT_EVENTS, STAT_MATCHED, STAT_OUTSIDE, STAT_DROPS, STAT_MAX };

struct watch_region {
	__u64 start;
	__u64 end;
	__u64 block_size;
	__u32 id;
	__u32 pad;
};

/* All watched regions of one process (tgid), scanned linearly. */
struct watch_proc {
	__u32 n;
	__u32 pad;
	struct watch_region r[MAX_REGIONS];
};

struct count_key {
	__u32 region;
	__u32 block;
};

struct count_val {
	__u64 accesses;
	__u64 reads;
	__u64 writes;
	__u64 last_seen;
	/* Program runs that counted the block: DAMON aggregations in which
	 * it was accessed, hint calls, faults, PMU samples. */
	__u64 events;
};

/* tgid -> regions; max_entries is set by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct watch_proc);
} watch SEC(".maps");

struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct count_key);
	__type(value, struct count_val);
};

/* The two count maps that epochs alternate between. */
struct counts_map counts_a SEC(".maps");
struct counts_map counts_b SEC(".maps");

/* One slot holding the count map of the current epoch. The loader swaps
 * it; the map-in-map update waits for running programs, so the old map is
 * quiet once the update returns. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct counts_map);
} epoch SEC(".maps") = {
	.values = { &counts_a },
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_add(__u32 which, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);
	if (v)
		*v += n; /* per-CPU: no atomics needed */
}

/* A global function: the verifier checks it once, not per call site. */
__attribute__((noinline)) int count_block(__u32 region, __u32 block, __u64 n, int kind, __u64 now)
{
	__u32 zero = 0;
	void *counts = bpf_map_lookup_elem(&epoch, &zero);
	if (!counts)
		return 0;
	struct count_key k = { .region = region, .block = block };
	struct count_val *v = bpf_map_lookup_elem(counts, &k);
	if (!v) {
		struct count_val nv = {};
		/* Fails with -EEXIST when another CPU inserted the key first
		 * (then the lookup finds it) or -E2BIG when the map is full. */
		bpf_map_update_elem(counts, &k, &nv, BPF_NOEXIST);
		v = bpf_map_lookup_elem(counts, &k);
		if (!v) {
			stat_add(STAT_DROPS, 1);
			return 0;
		}
	}
	__sync_fetch_and_add(&v->accesses, n);
	if (kind == KIND_READ)
		__sync_fetch_and_add(&v->reads, n);
	else if (kind == KIND_WRITE)
		__sync_fetch_and_add(&v->writes, n);
	__sync_fetch_and_add(&v->events, 1);
	v->last_seen = now;
	stat_add(STAT_MATCHED, 1);
	return 0;
}

/* record counts an access of len bytes (at least one, at most MAX_SPAN
 * blocks) at addr by process tgid, weighted n. */
static __always_inline void record(__u32 tgid, __u64 addr, __u64 len, __u64 n, int kind)
{
	struct watch_proc *p = bpf_map_lookup_elem(&watch, &tgid);
	if (!p)
		return;
	stat_add(STAT_EVENTS, 1);
	__u64 first = 0, span = 0;
	__u32 id = 0;
	for (int i = 0; i < MAX_REGIONS; i++) {
		if (i >= p->n)
			break;
		struct watch_region *r = &p->r[i];
		if (addr < r->start || addr >= r->end || r->block_size == 0)
			continue;
		__u64 last = addr + (len ? len - 1 : 0);
		if (last >= r->end || last < addr)
			last = r->end - 1;
		first = (addr - r->start) / r->block_size;
		span = (last - r->start) / r->block_size - first + 1;
		id = r->id;
		break;
	}
	if (span == 0) {
		stat_add(STAT_OUTSIDE, 1);
		return;
	}
	__u64 now = bpf_ktime_get_ns();
	for (int j = 0; j < MAX_SPAN; j++) {
		if (j >= span)
			break;
		count_block(id, first + j, n, kind, now);
	}
}
