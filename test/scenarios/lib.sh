# Shell helpers of the scenario scripts (sourced; /lib.sh in the guest).
# Every helper reports through `probe record`, so the Go side asserts.
SOCK=/run/kvtier/kvtier.sock
METRICS=http://127.0.0.1:9477/metrics

# daemon_start TAG CONFIG [FLAG...]: start the daemon, wait until its API
# answers, and scrape its metrics every $SCRAPE (default 500ms) into
# /run/scrape-TAG.ndjson.
daemon_start() {
	_tag=$1 _cfg=$2
	shift 2
	kvtier daemon --config "$_cfg" "$@" >"/run/daemon-$_tag.log" 2>&1 &
	DAEMON=$!
	probe record "daemon-up-$_tag" -- sh -c "for i in \$(seq 200); do probe api $SOCK status >/dev/null 2>&1 && exit 0; kill -0 $DAEMON || exit 2; sleep 0.2; done; exit 1"
	probe scrape "$METRICS" "${SCRAPE:-500ms}" >"/run/scrape-$_tag.ndjson" 2>/dev/null &
	SCRAPER=$!
}

# daemon_stop TAG: SIGTERM, the exit code, the metrics series and the log.
daemon_stop() {
	kill -TERM "$DAEMON"
	wait "$DAEMON"
	_rc=$?
	kill -TERM "$SCRAPER"
	wait "$SCRAPER"
	probe record "daemon-exit-$1" -- echo "$_rc"
	probe record "scrape-$1" -- cat "/run/scrape-$1.ndjson"
	probe record "daemon-log-$1" -- cat "/run/daemon-$1.log"
}

# wl_start TAG FLAG...: start a workload with control socket /run/wl-TAG.sock.
wl_start() {
	_tag=$1
	shift
	workload "$@" -control "/run/wl-$_tag.sock" >"/run/wl-$_tag.report" &
	eval "WL_$_tag=\$!"
	probe record "wait-$_tag" -- probe wait "/run/wl-$_tag.sock" 120s
}

# ctl TAG COMMAND...: one control command of workload TAG.
ctl() {
	_tag=$1
	shift
	probe ctl "/run/wl-$_tag.sock" "$@"
}

# wl_quit TAG: end workload TAG and record its final report.
wl_quit() {
	probe record "quit-$1" -- probe ctl "/run/wl-$1.sock" quit
	eval "wait \$WL_$1"
	probe record "report-$1" -- cat "/run/wl-$1.report"
}

# touch_every TAG N BLOCKS ROUNDS: N times, workload TAG reads BLOCKS
# ROUNDS times, then half a second (one epoch of input, rules and faults) passes.
touch_every() {
	_i=0
	while [ "$_i" -lt "$2" ]; do
		ctl "$1" touch "$3" "$4" >/dev/null
		sleep 0.5
		_i=$((_i + 1))
	done
}
