# Scenario 1 without the daemon: topology classification, then the
# workload's arena moved to node 1 and back with move_pages(2), placement
# checked by queries from a second process, every checksum verified.
# Settings (from /scenario.env): ARENA_MIB.
probe record topology -- probe topology
probe record kvtier-topology -- kvtier topology --json
# Kernel NUMA balancing would pull the pages back to node 0 as soon as the
# workload reads them (see DESIGN.md); this scenario is about moves alone.
probe record balancing-off -- sh -c 'echo 0 >/proc/sys/kernel/numa_balancing && cat /proc/sys/kernel/numa_balancing'
workload -arena-mib "$ARENA_MIB" -nohugepage -control /run/wl.sock >/run/wl.report &
probe record wait -- probe wait /run/wl.sock 120s
probe record memcpy -- probe memcpy 64
probe record where-start -- probe where /run/wl.sock
probe record move-to-1 -- probe move /run/wl.sock 1
probe record verify-on-1 -- probe ctl /run/wl.sock verify
probe record where-after-read -- probe where /run/wl.sock
probe record move-to-0 -- probe move /run/wl.sock 0
probe record verify-on-0 -- probe ctl /run/wl.sock verify
probe record quit -- probe ctl /run/wl.sock quit
wait
probe record report -- cat /run/wl.report
