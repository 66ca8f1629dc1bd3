# Scenarios 2 and 3 (regret and budgets), uprobe sampler.
# Regret: the same script under lru and regret_aware: a hot set converges
# to node 0, then three cycles: a burst revisits six demoted blocks (B),
# then three steps each read the hot set and scan two new cold blocks; the
# probe records where every block is after each step. The steps of a cycle
# push B out again under lru, so every later burst revisits blocks soon
# after their demotion, and regret_aware's regret for B builds over the
# cycles (the first burst is B's first read: no regret yet). The hot set
# is 6 of the 32 blocks, so the fast tier (12) has room for all of B: with
# 8 only four of B came back in a burst, which four hung on the guest's
# timing, and so did the comparison (regret_aware ahead by 1 to 8
# block-steps in nine runs; with 6, by 11 to 13 in four).
# Every step waits for daemon epochs, not wall time: an epoch's share of
# the guest's (TCG) time varies, and a step's accesses must be planned and
# moved, and its promotions out of the 2-epoch cooldown, before the next.
# Budgets: a 32 MiB arena starts on node 0 with a 8 MiB fast-tier budget,
# so the daemon demotes under a pages-per-epoch limit, then a SIGHUP
# tightens the bytes-per-second limit.
. /lib.sh
epochs() { probe wait-epochs "$METRICS" "$1" 60s >/dev/null; }
for P in lru regret; do
	daemon_start "$P" "/etc/kvtier/$P.hcl"
	wl_start "$P" -arena-mib 64 -nohugepage -daemon "$SOCK" -rounds 2 -interval 150ms -hot-frac 0.1875
	i=0
	while [ "$i" -lt 6 ]; do
		ctl "$P" phase hot >/dev/null
		epochs 1
		i=$((i + 1))
	done
	epochs 2
	probe record "where-$P-converged" -- probe where "/run/wl-$P.sock"
	B=$(probe pick "/run/wl-$P.sock" 1 6)
	probe record "burst-set-$P" -- echo "$B"
	scan=""
	for b in $(seq 8 31); do
		case ",$B," in *",$b,"*) ;; *) scan="$scan $b" ;; esac
	done
	set -- $scan
	step=1
	for cycle in 1 2 3; do
		probe record "burst-$P-$cycle" -- probe ctl "/run/wl-$P.sock" touch "$B" 3
		epochs 3
		probe record "where-$P-burst-$cycle" -- probe where "/run/wl-$P.sock"
		s=0
		while [ "$s" -lt 3 ] && [ $# -ge 2 ]; do
			ctl "$P" phase hot >/dev/null
			ctl "$P" touch "$1,$2" 2 >/dev/null
			shift 2
			epochs 3
			probe record "where-$P-step-$step" -- probe where "/run/wl-$P.sock"
			step=$((step + 1))
			s=$((s + 1))
		done
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
