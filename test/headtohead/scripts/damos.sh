# DAMON DAMOS tiering of the head-to-head guest, set up through
# /sys/kernel/mm/damon/admin the way HMSDK's gen_migpol.py does it: one
# kdamond per NUMA node, operations paddr over the node's physical range;
# node 0's scheme migrate_cold to node 1 (regions not accessed for a while,
# young pages filtered out), node 1's migrate_hot to node 0 (regions
# accessed at all, non-young pages filtered out). The intervals and ages are
# HMSDK's scaled to kvtier's 1 s epoch; the quota is kvtier's migration
# budget. Every setting is printed by `damos.sh start`.
#   damos.sh start [paddr]   set up and turn on both kdamonds
#   damos.sh stats           the schemes' statistics (tried, applied, quota)
A=/sys/kernel/mm/damon/admin/kdamonds
# Monitoring: sample every 20 ms, aggregate every 500 ms (so nr_accesses
# counts 0-25), regions re-split every 5 s, 100 to 2000 regions.
: "${DAMOS_SAMPLE_US:=20000}" "${DAMOS_AGGR_US:=500000}" "${DAMOS_UPDATE_US:=5000000}"
: "${DAMOS_MIN_NR:=100}" "${DAMOS_MAX_NR:=2000}"
# migrate_cold: nr_accesses 0-0 for at least COLD_AGE aggregations (2 s).
: "${DAMOS_COLD_AGE:=4}"
# migrate_hot: nr_accesses at least HOT_MIN (1 of 25 samples: HMSDK's 5%).
: "${DAMOS_HOT_MIN:=1}"
# Quota: 256 MiB a second per scheme, at most 1 s of CPU a second,
# prioritised by age as HMSDK does (weights 0 0 1). DAMOS_HOT_QUOTA_MS is
# the hot scheme's time quota (default DAMOS_QUOTA_MS).
: "${DAMOS_QUOTA_BYTES:=268435456}" "${DAMOS_QUOTA_MS:=1000}" "${DAMOS_RESET_MS:=1000}"
: "${DAMOS_HOT_QUOTA_MS:=$DAMOS_QUOTA_MS}"
: "${DAMOS_APPLY_US:=0}"

w() { echo "$2" >"$1" || { echo "damos: writing $2 to $1 failed" >&2; exit 1; }; }

# node_range N: the physical address range of node N's memory blocks.
node_range() {
	bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
	ids=$(ls -d /sys/devices/system/node/node$1/memory[0-9]* | sed 's/.*memory//' | sort -n)
	lo=$(echo "$ids" | head -1)
	hi=$(echo "$ids" | tail -1)
	echo $((lo * bs)) $(((hi + 1) * bs))
}

# kdamond K OPS SRC ACTION DEST: kdamond K watches node SRC (paddr) and
# moves what its scheme picks to node DEST.
kdamond() {
	c=$A/$1/contexts
	w $c/nr_contexts 1
	c=$c/0
	w $c/operations "$2"
	w $c/monitoring_attrs/intervals/sample_us "$DAMOS_SAMPLE_US"
	w $c/monitoring_attrs/intervals/aggr_us "$DAMOS_AGGR_US"
	w $c/monitoring_attrs/intervals/update_us "$DAMOS_UPDATE_US"
	w $c/monitoring_attrs/nr_regions/min "$DAMOS_MIN_NR"
	w $c/monitoring_attrs/nr_regions/max "$DAMOS_MAX_NR"
	w $c/targets/nr_targets 1
	w $c/targets/0/regions/nr_regions 1
	set -- "$@" $(node_range "$3")
	w $c/targets/0/regions/0/start "$6"
	w $c/targets/0/regions/0/end "$7"
	scheme $c/schemes "$4" "$5"
}

# scheme DIR ACTION DEST: one migrate scheme with its pattern and quota.
scheme() {
	w $1/nr_schemes 1
	s=$1/0
	w $s/action "$2"
	w $s/target_nid "$3"
	w $s/apply_interval_us "$DAMOS_APPLY_US"
	w $s/access_pattern/sz/min 4096
	w $s/access_pattern/sz/max 18446744073709551615
	quota_ms=$DAMOS_QUOTA_MS
	if [ "$2" = migrate_cold ]; then
		w $s/access_pattern/nr_accesses/min 0
		w $s/access_pattern/nr_accesses/max 0
		w $s/access_pattern/age/min "$DAMOS_COLD_AGE"
		young=Y
	else
		w $s/access_pattern/nr_accesses/min "$DAMOS_HOT_MIN"
		w $s/access_pattern/nr_accesses/max 4294967295
		w $s/access_pattern/age/min 0
		young=N
		quota_ms=$DAMOS_HOT_QUOTA_MS
	fi
	w $s/access_pattern/age/max 4294967295
	w $s/quotas/ms "$quota_ms"
	w $s/quotas/bytes "$DAMOS_QUOTA_BYTES"
	w $s/quotas/reset_interval_ms "$DAMOS_RESET_MS"
	w $s/quotas/weights/sz_permil 0
	w $s/quotas/weights/nr_accesses_permil 0
	w $s/quotas/weights/age_permil 1000
	w $s/watermarks/metric none
	w $s/filters/nr_filters 1
	w $s/filters/0/type young
	w $s/filters/0/matching $young
}

# show: every setting written, for the report.
show() {
	for k in 0 1; do
		grep -r . $A/$k/contexts/0 2>/dev/null | sed "s|$A/||" | grep -v '/stats/\|tried_regions'
	done
}

case "$1" in
start)
	ops=${2:-paddr}
	[ -d $A ] || { echo "damos: no $A (DAMON sysfs)" >&2; exit 1; }
	w $A/nr_kdamonds 2
	kdamond 0 "$ops" 0 migrate_cold 1
	kdamond 1 "$ops" 1 migrate_hot 0
	w $A/0/state on
	w $A/1/state on
	show
	;;
stats)
	for k in 0 1; do
		echo update_schemes_stats >$A/$k/state
	done
	sleep 1
	for k in 0 1; do
		grep -r . $A/$k/contexts/0/schemes/0/stats | sed "s|$A/||"
		echo "$k/state $(cat $A/$k/state) pid $(cat $A/$k/pid)"
	done
	;;
*)
	echo "usage: damos.sh start [paddr]|stats" >&2
	exit 2
	;;
esac
