# Scenarios 7 (the kernel's own tiering) and 6 (bad input) on one guest.
# NUMA balancing is on at boot (Debian's default).
# 7. kernel_tiering = refuse: the daemon exits with a clear error;
#    report: it samples and plans but moves nothing and says why;
#    disable: it turns balancing off and moves.
# 6. With the disable daemon running: malformed API requests, --check of
#    bad configs, a SIGHUP with a bad config; the daemon keeps serving.
. /lib.sh
# tiering-MODE.hcl: tiering.hcl with kernel_tiering = MODE.
for m in refuse report disable; do
	sed "s/^kernel_tiering *= .*/kernel_tiering = \"$m\"/" /etc/kvtier/tiering.hcl >"/etc/kvtier/tiering-$m.hcl"
done
probe record balancing-at-boot -- cat /proc/sys/kernel/numa_balancing
probe record refuse -- sh -c 'timeout 30 kvtier daemon --config /etc/kvtier/tiering-refuse.hcl 2>&1; echo "exit=$?"'
probe record balancing-after-refuse -- cat /proc/sys/kernel/numa_balancing

daemon_start report /etc/kvtier/tiering-report.hcl
wl_start report -arena-mib 32 -nohugepage -daemon "$SOCK" -rounds 2 -interval 100ms
touch_every report 6 0-3 1
probe record where-report -- probe where /run/wl-report.sock
probe record status-report -- probe api "$SOCK" status
probe record balancing-after-report -- cat /proc/sys/kernel/numa_balancing
daemon_stop report

daemon_start disable /etc/kvtier/tiering-disable.hcl
probe record balancing-after-disable -- cat /proc/sys/kernel/numa_balancing
# The workload's registration survives the daemon's restart (state_dir):
# the region comes back with its id, and the workload need not register.
probe record regions-restored -- probe api "$SOCK" regions
touch_every report 6 0-3 1
probe record where-disable -- probe where /run/wl-report.sock
probe record status-disable -- probe api "$SOCK" status

probe record badinput -- probe badinput "$SOCK" /run/wl-report.sock
probe record regions-after-badinput -- probe api "$SOCK" regions
probe record check-bad -- sh -c 'kvtier daemon --check --config /etc/kvtier/bad.hcl 2>&1; echo "exit=$?"'
probe record check-bad-syntax -- sh -c 'kvtier daemon --check --config /etc/kvtier/bad-syntax.hcl 2>&1; echo "exit=$?"'
probe record check-good -- sh -c 'kvtier daemon --check --config /etc/kvtier/tiering-disable.hcl 2>&1; echo "exit=$?"'
cp /etc/kvtier/bad.hcl /etc/kvtier/tiering-disable.hcl
kill -HUP "$DAEMON"
sleep 1.5
probe record alive-after-hup -- sh -c "kill -0 $DAEMON && echo alive"
probe record policy-after-hup -- probe api "$SOCK" policy
ctl report touch 8-11 2 >/dev/null
sleep 1.5
probe record status-after-hup -- probe api "$SOCK" status
wl_quit report
daemon_stop disable
