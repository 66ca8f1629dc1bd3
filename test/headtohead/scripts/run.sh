# The head-to-head benchmark's guest script (/scenario.sh): one
# configuration per boot. /scenario.env sets HH_MODE (none, tpp, damos,
# kvtier), HH_CONFIG (the kvtier config's name), HH_HINTS (1: the workload
# sends hints) and HH_WL (the workload's phase flags).
. /lib.sh
# kvtier's metrics are scraped as a Prometheus server would, every 15 s
# (its common scrape_interval); a scrape costs the daemon about 20 ms under
# TCG (the process collector's /proc reads and the gzip of the answer).
SCRAPE=15s
probe record vmstat-start -- cat /proc/vmstat
probe record kernel-before -- sh /hh/kernel.sh show
# Every configuration starts from the same state: no kernel tiering.
probe record kernel-off -- sh /hh/kernel.sh off
WL="hhwork $HH_WL -trace /hh/trace.jsonl"
case "$HH_MODE" in
tpp) probe record tpp -- sh /hh/kernel.sh tpp ;;
damos) probe record damos -- sh /hh/damos.sh start paddr ;;
kvtier)
	daemon_start hh "/etc/kvtier/$HH_CONFIG.hcl" ${HH_PROFILE:+--cpu-profile "$HH_PROFILE"}
	# The daemon's event stream (its moves per epoch) for the console log,
	# from a process not called kvtier (the CPU figures sum those).
	ln -sf "$(command -v kvtier)" /run/kvtier-events
	/run/kvtier-events events --json >/run/events.ndjson 2>/dev/null &
	WL="$WL -daemon $SOCK"
	[ "$HH_HINTS" = 1 ] && WL="$WL -hints"
	;;
esac
probe record kernel-during -- sh /hh/kernel.sh show
probe record workload -- $WL
probe record vmstat-end -- cat /proc/vmstat
probe record procstat -- sh -c 'cat /proc/[0-9]*/stat 2>/dev/null'
case "$HH_MODE" in
damos) probe record damos-stats -- sh /hh/damos.sh stats ;;
kvtier)
	probe record metrics -- probe metrics "$METRICS"
	probe record events -- sh -c 'grep -v "\"type\":\"regret\"" /run/events.ndjson | tail -n 2000'
	daemon_stop hh
	[ -n "$HH_PROFILE" ] && probe record cpu-profile -- cat "$HH_PROFILE"
	;;
esac
probe record numastat -- sh -c 'cat /sys/devices/system/node/node*/meminfo | grep -E "MemTotal|MemFree"'
exit 0
