# Scenario 5 (faults) on a guest whose node 1 has 192 MiB.
# a. Workload a (64 MiB) is killed while the daemon demotes its blocks;
#    the daemon must go on serving workload b (32 MiB, tenant b).
# b. The daemon is killed with SIGKILL while it demotes workload c
#    (64 MiB); every checksum must match, and a restarted daemon takes
#    the workloads over from its state file, without their registering
#    again. Then a client as uid 65534 (the API group's) is refused pid 1,
#    root's workload, trace recording and root's region, and may register
#    its own process.
# c. Workload d (192 MiB) needs more room on node 1 than is left: moves
#    fail (ENOMEM) and the daemon must go on, back off and log why.
. /lib.sh
# state_dir of faults.hcl: the registrations file survives the SIGKILL.
mkdir -p -m 0700 /run/kvtier-state
daemon_start one /etc/kvtier/faults.hcl
wl_start b -tenant b -arena-mib 32 -nohugepage -daemon "$SOCK" -rounds 2 -interval 100ms
ctl b touch 0-3 2 >/dev/null
wl_start a -tenant a -arena-mib 64 -nohugepage -daemon "$SOCK" -rounds 1
probe record a-migrating -- probe wait-metric "$METRICS" 'kvtier_tier_bytes{tenant="a",tier="slow"}' 4194304 60s
kill -KILL "$WL_a"
probe record a-killed-metrics -- probe metrics "$METRICS"
wait "$WL_a"
# Tenant b now reads three of its blocks that are on node 1: the daemon
# must still promote them.
B=$(probe pick /run/wl-b.sock 1 3)
probe record b-promote-set -- echo "$B"
i=0
while [ "$i" -lt 8 ]; do
	ctl b touch "0-1,$B" 1 >/dev/null
	sleep 0.5
	i=$((i + 1))
done
probe record where-b-after-a -- probe where /run/wl-b.sock
probe record regions-after-a -- probe api "$SOCK" regions
probe record status-after-a -- probe api "$SOCK" status

wl_start c -tenant c -arena-mib 64 -nohugepage -daemon "$SOCK" -rounds 1
probe record c-migrating -- probe wait-metric "$METRICS" 'kvtier_tier_bytes{tenant="c",tier="slow"}' 4194304 60s
kill -KILL "$DAEMON"
probe record daemon-killed-metrics -- sh -c "probe metrics $METRICS; echo; kill -0 $DAEMON 2>/dev/null && echo running || echo gone"
wait "$DAEMON"
probe record daemon-killed-status -- echo $?
kill -TERM "$SCRAPER"
wait "$SCRAPER"
probe record scrape-one -- cat /run/scrape-one.ndjson
probe record daemon-log-one -- cat /run/daemon-one.log
probe record where-c-killed -- probe where /run/wl-c.sock
probe record verify-c-killed -- probe ctl /run/wl-c.sock verify
probe record verify-b-killed -- probe ctl /run/wl-b.sock verify
probe record state-killed -- cat /run/kvtier-state/registrations.json

# No re-registration: the new daemon restores b's and c's regions.
daemon_start two /etc/kvtier/faults.hcl
i=0
while [ "$i" -lt 10 ]; do
	ctl b touch 0-3 1 >/dev/null
	ctl c touch 0-1 1 >/dev/null
	sleep 0.5
	i=$((i + 1))
done
probe record where-c-restarted -- probe where /run/wl-c.sock
probe record where-b-restarted -- probe where /run/wl-b.sock
probe record verify-c-restarted -- probe ctl /run/wl-c.sock verify
probe record verify-b-restarted -- probe ctl /run/wl-b.sock verify
probe record regions-restarted -- probe api "$SOCK" regions
probe record pids-restarted -- echo "$WL_b $WL_c"

# An unprivileged member of the API group (uid and gid 65534) against
# root's workload b.
RB=$(probe region-id "$SOCK" "$WL_b")
probe record authz-root-region -- echo "$RB"
probe record authz-nobody -- probe as-user 65534 65534 -- probe authz "$SOCK" "$WL_b" "$RB"
probe record authz-regions-after -- probe api "$SOCK" regions

probe record node1-before-d -- sh -c 'grep -E "MemFree|MemUsed" /sys/devices/system/node/node1/meminfo'
wl_start d -tenant d -arena-mib 192 -nohugepage -daemon "$SOCK" -rounds 1
sleep 12
probe record node1-full -- sh -c 'grep -E "MemFree|MemUsed" /sys/devices/system/node/node1/meminfo'
probe record status-full -- probe api "$SOCK" status
probe record verify-d -- probe ctl /run/wl-d.sock verify
wl_quit d
wl_quit c
wl_quit b
daemon_stop two
