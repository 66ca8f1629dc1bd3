/* Shared machinery of kvtier's samplers: the watch list, the two-epoch
 * per-block count maps and the statistics. */
#pragma once

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_REGIONS 4096 /* bpf.MaxRegionsPerProcess, a multiple of CHUNK_REGIONS */
#define CHUNK_REGIONS 128 /* regions per element of the regions map (bpf.chunkRegions), a power of two */
#define MAX_CHUNKS (MAX_REGIONS / CHUNK_REGIONS) /* a power of two */
#define SEARCH_STEPS 13  /* binary search steps: ceil(log2(MAX_REGIONS + 1)) */
#define MAX_SPAN 64      /* blocks counted per hint call */

/* KIND_SPREAD: accesses seen over several blocks at once (a DAMON region
 * DAMON merged across blocks): they count, but not as an event of each
 * block, which would make a single pass look like separate reads. */
enum kind { KIND_UNKNOWN = 0, KIND_READ = 1, KIND_WRITE = 2, KIND_SPREAD = 3 };

enum stat { STAT_EVENTS, STAT_MATCHED, STAT_OUTSIDE, STAT_DROPS, STAT_MAX };

struct watch_region {
	__u64 start;
	__u64 end;
	__u64 block_size;
	__u32 id;
	__u32 pad;
};

/* CHUNK_REGIONS consecutive regions of one process's sorted list. */
struct watch_chunk {
	struct watch_region r[CHUNK_REGIONS];
};

/* The watched regions of one process (tgid): n regions sorted by start,
 * not overlapping, region i in r[i % CHUNK_REGIONS] of element
 * chunk[i / CHUNK_REGIONS] of the regions map. The loader never changes a
 * chunk a watch_proc names: it writes the new list's changed chunks to
 * free elements, then replaces the watch_proc, then frees the old chunks
 * (reused first in, first out). */
struct watch_proc {
	__u32 n;
	__u32 pad;
	__u32 chunk[MAX_CHUNKS];
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

/* tgid -> regions; max_entries is set by the loader. Not preallocated: a
 * replaced entry is freed after an RCU grace period, so a program still
 * reading the old list never sees it reused for another process. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct watch_proc);
} watch SEC(".maps");

/* The chunks of every process's list; max_entries is set by the loader
 * (a pool shared by all processes, see bpf.Options.MaxWatched). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct watch_chunk);
} regions SEC(".maps");

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
	if (kind != KIND_SPREAD)
		__sync_fetch_and_add(&v->events, 1);
	v->last_seen = now;
	stat_add(STAT_MATCHED, 1);
	return 0;
}

/* The binary search reads the list through global functions (region_end,
 * count_access, damon_overlap): the verifier checks each once, apart from
 * its callers, and tracks no bounds through their scalar arguments and
 * results, so the search's indexes stay imprecise and its paths merge
 * (on 6.18: 2.2k instructions processed per program; 29k with the reads
 * inlined, where every index feeds a memory access). */

/* region_at returns region i of p's list, or NULL when its chunk is not
 * in the regions map. The masks bound the offsets for the verifier. */
static __always_inline struct watch_region *region_at(struct watch_proc *p, __u32 i)
{
	if (!p)
		return NULL;
	__u32 c = p->chunk[(i / CHUNK_REGIONS) & (MAX_CHUNKS - 1)];
	struct watch_chunk *ch = bpf_map_lookup_elem(&regions, &c);
	if (!ch)
		return NULL;
	return &ch->r[i & (CHUNK_REGIONS - 1)];
}

/* region_end returns the end of region i of p's list (0 when missing). */
__attribute__((noinline)) __u64 region_end(struct watch_proc *p, __u32 i)
{
	struct watch_region *r = region_at(p, i);
	return r ? r->end : 0;
}

/* first_end_above returns the index of the first of p's n regions that
 * ends above addr, or n when none does: a binary search (the list is
 * sorted by start and its regions do not overlap, so it is sorted by end
 * too) of at most SEARCH_STEPS steps, enough for n <= MAX_REGIONS (the
 * loader's bound). n is not clamped to MAX_REGIONS: on the path where a
 * clamp makes it constant, every comparison is known to the verifier and
 * it walks each of the search's 2^13 leaves (over 1M instructions). */
static __always_inline __u32 first_end_above(struct watch_proc *p, __u32 n, __u64 addr)
{
	__u32 lo = 0, hi = n;
	for (int i = 0; i < SEARCH_STEPS; i++) {
		if (lo >= hi)
			break;
		__u32 mid = (lo + hi) / 2;
		if (region_end(p, mid) > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* count_access counts an access of len bytes at addr (at least one, at
 * most MAX_SPAN blocks, clipped to the region) in region k of p's list.
 * It returns 0 when addr is not in region k. */
__attribute__((noinline)) int count_access(struct watch_proc *p, __u32 k, __u64 addr, __u64 len, int kind)
{
	struct watch_region *r = region_at(p, k);
	if (!r)
		return 0;
	__u64 start = r->start, end = r->end, bs = r->block_size;
	__u32 id = r->id;
	if (addr < start || addr >= end || bs == 0)
		return 0;
	__u64 last = addr + (len ? len - 1 : 0);
	if (last >= end || last < addr)
		last = end - 1;
	__u64 first = (addr - start) / bs;
	__u64 span = (last - start) / bs - first + 1;
	__u64 now = bpf_ktime_get_ns();
	for (int j = 0; j < MAX_SPAN; j++) {
		if (j >= span)
			break;
		count_block(id, first + j, 1, kind, now);
	}
	return 1;
}

/* record counts an access of len bytes at addr by process tgid. */
static __always_inline void record(__u32 tgid, __u64 addr, __u64 len, int kind)
{
	struct watch_proc *p = bpf_map_lookup_elem(&watch, &tgid);
	if (!p)
		return;
	stat_add(STAT_EVENTS, 1);
	__u32 nr = p->n;
	__u32 k = first_end_above(p, nr, addr);
	if (k >= nr || !count_access(p, k, addr, len, kind))
		stat_add(STAT_OUTSIDE, 1);
}
