# Scenario 4 (pinned blocks, classes), then a THP arena (no
# MADV_NOHUGEPAGE: 2 MiB huge pages, EBUSY retried by the mover) under a
# daemon sampling with DAMON.
# 32 blocks of 4 KiB pages, blocks 0-1 pinned, 12 blocks of fast tier.
# 1. Hot set 2-11 converges (with the pinned blocks: 12 blocks).
# 2. The probe moves pinned block 0 to node 1; the daemon must bring it back.
# 3. Blocks 7-11 are read, then 2-6 (the most recent), then 2-6 are marked
#    think_complete (and not read again: the mark alone must reorder them),
#    then new blocks 20-24 are read: the room they need must come from 2-6
#    (think_complete), not from 7-11 (think_active).
. /lib.sh
daemon_start rules /etc/kvtier/rules.hcl
wl_start rules -arena-mib 64 -nohugepage -pinned-blocks 2 -daemon "$SOCK" -rounds 2 -interval 150ms
probe record where-start -- probe where /run/wl-rules.sock
touch_every rules 6 2-11 2
probe record where-converged -- probe where /run/wl-rules.sock
probe record move-pinned -- probe moveblocks /run/wl-rules.sock 0 1
touch_every rules 4 2-11 1
probe record where-pinned-back -- probe where /run/wl-rules.sock
ctl rules touch 7-11 2 >/dev/null
sleep 0.6
ctl rules touch 2-6 1 >/dev/null
sleep 0.6
probe record complete -- probe ctl /run/wl-rules.sock complete 2-6
probe record regions-after-complete -- probe api "$SOCK" regions
touch_every rules 5 20-24 2
probe record where-classes -- probe where /run/wl-rules.sock
probe record status -- probe api "$SOCK" status
wl_quit rules
daemon_stop rules

# THP: a 48 MiB arena of huge pages (24 blocks, none pinned) over the
# 24 MiB fast tier; the daemon demotes half of it, a huge page at a time.
daemon_start thp /etc/kvtier/thp.hcl
wl_start thp -tenant t -arena-mib 48 -pinned-blocks 0 -daemon "$SOCK" -rounds 1
WLPID=$(probe ctl /run/wl-thp.sock info | sed 's/^{"pid":\([0-9]*\).*/\1/')
probe record thp -- sh -c "grep -E 'AnonHugePages|^Rss' /proc/$WLPID/smaps_rollup; cat /sys/kernel/mm/transparent_hugepage/enabled"
probe record thp-demoting -- probe wait-metric "$METRICS" 'kvtier_tier_bytes{tenant="t",tier="slow"}' 25165824 40s
ctl thp touch 0-3 3 >/dev/null
sleep 1
probe record where-thp -- probe where /run/wl-thp.sock
probe record metrics-thp -- probe metrics "$METRICS"
probe record placement-thp -- probe api "$SOCK" placement
wl_quit thp
daemon_stop thp
