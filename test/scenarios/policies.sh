# Scenarios 2 and 3 (regret and budgets), uprobe sampler.
# Regret: the same script under lru and regret_aware: a hot set converges
# to node 0, a burst revisits six demoted blocks (B), then steps read the
# hot set and scan two new cold blocks each; the probe records where every
# block is after each step. Budgets: a 32 MiB arena starts on node 0 with a
# 8 MiB fast-tier budget, so the daemon demotes under a pages-per-epoch
# limit, then a SIGHUP tightens the bytes-per-second limit.
. /lib.sh
for P in lru regret; do
	daemon_start "$P" "/etc/kvtier/$P.hcl"
	wl_start "$P" -arena-mib 64 -nohugepage -daemon "$SOCK" -rounds 2 -interval 150ms -hot-frac 0.25
	i=0
	while [ "$i" -lt 6 ]; do
		ctl "$P" phase hot >/dev/null
		sleep 0.5
		i=$((i + 1))
	done
	probe record "where-$P-converged" -- probe where "/run/wl-$P.sock"
	B=$(probe pick "/run/wl-$P.sock" 1 6)
	probe record "burst-set-$P" -- echo "$B"
	probe record "burst-$P" -- probe ctl "/run/wl-$P.sock" touch "$B" 3
	sleep 1
	probe record "where-$P-burst" -- probe where "/run/wl-$P.sock"
	scan=""
	for b in $(seq 8 31); do
		case ",$B," in *",$b,"*) ;; *) scan="$scan $b" ;; esac
	done
	set -- $scan
	step=1
	while [ "$step" -le 6 ] && [ $# -ge 2 ]; do
		ctl "$P" phase hot >/dev/null
		ctl "$P" touch "$1,$2" 2 >/dev/null
		shift 2
		sleep 1
		probe record "where-$P-step-$step" -- probe where "/run/wl-$P.sock"
		step=$((step + 1))
	done
	probe record "status-$P" -- probe api "$SOCK" status
	wl_quit "$P"
	daemon_stop "$P"
done

SCRAPE=250ms daemon_start budgets /etc/kvtier/budgets.hcl
wl_start budgets -arena-mib 32 -nohugepage -daemon "$SOCK" -rounds 1 -hot-frac 0.25
probe record "budgets-wait-a" -- probe wait-metric "$METRICS" 'kvtier_migrated_bytes_total{direction="demote"}' 8388608 60s
cp /etc/kvtier/budgets-tight.hcl /etc/kvtier/budgets.hcl
kill -HUP "$DAEMON"
probe record "budgets-wait-b" -- probe wait-metric "$METRICS" 'kvtier_migrated_bytes_total{direction="demote"}' 25165824 60s
sleep 1
probe record "where-budgets" -- probe where /run/wl-budgets.sock
probe record "status-budgets" -- probe api "$SOCK" status
wl_quit budgets
daemon_stop budgets
