# Scenario 1 with the daemon (convergence): the workload registers its
# arena, reads its hot set in rounds, and the daemon should place the hot
# blocks on node 0 and the rest on node 1 within the fast-tier budget, as
# move_pages queries from the probe see it. Settings: ARENA_MIB, HOT_ROUNDS.
kvtier daemon --config /etc/kvtier/kvtier.hcl >/run/daemon.log 2>&1 &
daemon=$!
probe record daemon-up -- sh -c 'for i in $(seq 150); do [ -S /run/kvtier/kvtier.sock ] && exit 0; sleep 0.2; done; exit 1'
workload -arena-mib "$ARENA_MIB" -nohugepage -daemon /run/kvtier/kvtier.sock -control /run/wl.sock \
	-rounds 3 -interval 300ms >/run/wl.report &
workload=$!
probe record wait -- probe wait /run/wl.sock 120s
probe record where-start -- probe where /run/wl.sock
i=0
while [ "$i" -lt "$HOT_ROUNDS" ]; do
	probe ctl /run/wl.sock phase hot >/dev/null
	i=$((i + 1))
done
probe record where-converged -- probe where /run/wl.sock
probe record status -- probe api /run/kvtier/kvtier.sock status
probe record regions -- probe api /run/kvtier/kvtier.sock placement
probe record quit -- probe ctl /run/wl.sock quit
wait "$workload"
probe record report -- cat /run/wl.report
kill -TERM "$daemon"
wait "$daemon"
probe record daemon-log -- cat /run/daemon.log
