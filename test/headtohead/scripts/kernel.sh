# Kernel tiering knobs of the head-to-head guest.
#   kernel.sh show: print them
#   kernel.sh off:  numa_balancing 0, demotion off (every configuration's start)
#   kernel.sh tpp:  kernel TPP: numa_balancing 2 (memory tiering), demotion on,
#                   promotion rate limit 256 MB/s (kvtier's migration budget)
K=/proc/sys/kernel
D=/sys/kernel/mm/numa/demotion_enabled
S=/sys/kernel/debug/sched/numa_balancing
show() {
	for f in $K/numa_balancing $K/numa_balancing_promote_rate_limit_MBps $D \
		$S/scan_delay_ms $S/scan_period_min_ms $S/scan_period_max_ms $S/scan_size_mb \
		/sys/kernel/mm/transparent_hugepage/enabled; do
		[ -e "$f" ] && echo "$f $(cat "$f")"
	done
	return 0
}
case "$1" in
show) show ;;
off)
	echo 0 >$K/numa_balancing
	echo 0 >$D
	show
	;;
tpp)
	echo 2 >$K/numa_balancing || exit 1
	echo 1 >$D || exit 1
	[ -e $K/numa_balancing_promote_rate_limit_MBps ] && echo 256 >$K/numa_balancing_promote_rate_limit_MBps
	show
	;;
*)
	echo "usage: kernel.sh show|off|tpp" >&2
	exit 2
	;;
esac
