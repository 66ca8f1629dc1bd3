# The demo's guest script (go run ./test/demo, make demo): the daemon and
# the KV workload through the workload's phases; test/demo prints each
# step's result as it arrives.
. /lib.sh
probe record topology -- kvtier topology
daemon_start demo /etc/kvtier/demo.hcl
kvtier events --json >/run/events.ndjson 2>/dev/null &
EVENTS=$!
wl_start demo -arena-mib 64 -tenant2-mib 16 -nohugepage -daemon "$SOCK" -defer-register -rounds 2 -interval 150ms -burst-blocks 6
probe record where-start -- probe where /run/wl-demo.sock
probe record register -- probe ctl /run/wl-demo.sock register
sleep 1
probe record status-start -- kvtier status
probe record placement-start -- kvtier placement --region 1 --width 32
i=1
while [ "$i" -le 5 ]; do
	probe record "hot-$i" -- probe ctl /run/wl-demo.sock phase hot
	sleep 0.3
	i=$((i + 1))
done
probe record metrics-hot -- probe metrics "$METRICS"
probe record placement-hot -- kvtier placement --region 1 --width 32
probe record burst -- probe ctl /run/wl-demo.sock phase burst
sleep 1
probe record metrics-burst -- probe metrics "$METRICS"
probe record placement-burst -- kvtier placement --region 1 --width 32
probe record class -- probe ctl /run/wl-demo.sock phase class
i=1
while [ "$i" -le 3 ]; do
	probe record "hot2-$i" -- probe ctl /run/wl-demo.sock phase hot
	sleep 0.3
	i=$((i + 1))
done
probe record metrics-class -- probe metrics "$METRICS"
probe record placement-class -- kvtier placement --region 1 --width 32
probe record tenant2 -- probe ctl /run/wl-demo.sock phase tenant2
sleep 1.5
probe record placement-tenant2 -- kvtier placement --region 2 --width 32
probe record where-end -- probe where /run/wl-demo.sock
probe record status-end -- kvtier status
probe record metrics-end -- probe metrics "$METRICS"
kill "$EVENTS"
probe record events -- cat /run/events.ndjson
wl_quit demo
daemon_stop demo
