#!/usr/bin/env bash
# test/deps-stale-apt.sh: run test/deps.sh against stale apt lists, lists
# that name a kernel package the mirror no longer has, so that apt-get
# download fails (issue 15, item 1). deps.sh must run apt-get update once,
# look the kernels up again and fetch them; when the download still fails
# it must stop and say so, and without root it must say to update as root.
#
# Offline and quick: a copy of deps.sh runs in a temp dir with stand-ins for
# apt-get, apt-cache, dpkg, dpkg-query, id and qemu-system-x86_64 first on
# PATH; nothing of this machine's apt state or test/.cache is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "test/deps-stale-apt.sh: $*" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
fake() { printf '#!/usr/bin/env bash\n%s\n' "$2" >"$tmp/bin/$1" && chmod +x "$tmp/bin/$1"; }
# State in $FAKE_APT: "updated" after apt-get update, a line per update in
# "updates"; FAKE_UID is what id -u says; FAKE_LISTS=empty lists no 6.12
# kernel until an update; FAKE_DOWNLOAD=never fails every download, else
# downloads fail until the lists are updated.
fake apt-cache 'case $1 in
search) if [ -e "$FAKE_APT/updated" ]; then echo "linux-image-6.12.48+deb12-amd64 - Linux 6.12 for 64-bit PCs (signed)";
	elif [ "${FAKE_LISTS:-}" != empty ]; then echo "linux-image-6.12.41+deb12-amd64 - Linux 6.12 for 64-bit PCs (signed)"; fi ;;
depends) printf "linux-image-amd64\n  Depends: linux-image-6.1.0-40-amd64\n" ;;
*) exit 100 ;;
esac'
fake apt-get 'for a; do case $a in
update) touch "$FAKE_APT/updated"; echo update >>"$FAKE_APT/updates"; exit 0 ;;
download) pkg=${!#}
	if [ "${FAKE_DOWNLOAD:-}" = never ] || [ ! -e "$FAKE_APT/updated" ]; then
		echo "E: Failed to fetch http://deb.debian.org/debian/pool/main/l/linux/${pkg}_1_amd64.deb  404  Not Found" >&2; exit 100
	fi
	touch "${pkg}_1_amd64.deb"; exit 0 ;;
esac; done; exit 100'
fake dpkg '[ "$1" = -x ] || exit 2; mkdir -p "$3/boot" && touch "$3/boot/vmlinuz-6" "$3/boot/config-6"'
fake dpkg-query 'printf "install ok installed"'
fake id 'echo "${FAKE_UID:-0}"'
fake qemu-system-x86_64 'exit 0'

# run NAME [VAR=VALUE...]: deps.sh in a fresh tree; its status in $tmp/NAME/rc.
run() {
	local name=$1 dir="$tmp/$1"
	shift
	mkdir -p "$dir/test" "$dir/apt"
	cp test/deps.sh "$dir/test/"
	set +e
	env PATH="$tmp/bin:$PATH" FAKE_APT="$dir/apt" "$@" bash "$dir/test/deps.sh" >"$dir/out" 2>"$dir/log"
	echo $? >"$dir/rc"
	set -e
}
updates() { if [ -e "$1/apt/updates" ]; then wc -l <"$1/apt/updates"; else echo 0; fi; }
fail() { cat "$tmp/$1/log" >&2; die "$1: $2"; }

run stale
[ "$(cat "$tmp/stale/rc")" = 0 ] || fail stale "deps.sh failed"
grep -q 'the apt lists may be stale: running apt-get update and retrying' "$tmp/stale/log" || fail stale "no retry after apt-get update"
[ "$(updates "$tmp/stale")" = 1 ] || fail stale "apt-get update ran $(updates "$tmp/stale") times, want 1"
[ "$(cut -f1,2 "$tmp/stale/out" | tr '\t\n' ' ;')" = "6.12 linux-image-6.12.48+deb12-amd64;6.1 linux-image-6.1.0-40-amd64;" ] ||
	{ cat "$tmp/stale/out" >&2; fail stale "manifest does not name the kernels of the updated lists"; }

run gone FAKE_DOWNLOAD=never
[ "$(cat "$tmp/gone/rc")" != 0 ] || fail gone "deps.sh succeeded although every download failed"
grep -q 'apt-get download linux-image-6.12.48+deb12-amd64 failed even after apt-get update' "$tmp/gone/log" ||
	fail gone "no error naming the failed download"
[ "$(updates "$tmp/gone")" = 1 ] || fail gone "apt-get update ran $(updates "$tmp/gone") times, want 1"

# Empty lists: deps.sh updates them to find the kernels; a download that
# fails then is no reason for a second update.
run empty FAKE_LISTS=empty
[ "$(cat "$tmp/empty/rc")" = 0 ] || fail empty "deps.sh failed"
grep -q 'apt lists lack the kernel packages; running apt-get update' "$tmp/empty/log" || fail empty "no apt-get update for empty lists"
[ "$(updates "$tmp/empty")" = 1 ] || fail empty "apt-get update ran $(updates "$tmp/empty") times, want 1"
run empty-gone FAKE_LISTS=empty FAKE_DOWNLOAD=never
[ "$(cat "$tmp/empty-gone/rc")" != 0 ] || fail empty-gone "deps.sh succeeded although every download failed"
grep -q 'apt-get download failed, after apt-get update' "$tmp/empty-gone/log" || fail empty-gone "no error naming the failed download"
[ "$(updates "$tmp/empty-gone")" = 1 ] || fail empty-gone "apt-get update ran $(updates "$tmp/empty-gone") times, want 1"

run user FAKE_UID=1000
[ "$(cat "$tmp/user/rc")" != 0 ] || fail user "deps.sh succeeded without root and with stale lists"
grep -q '404  Not Found); the apt lists may be stale: run apt-get update as root' "$tmp/user/log" ||
	fail user "no advice to run apt-get update as root"
[ "$(updates "$tmp/user")" = 0 ] || fail user "apt-get update ran without root"
echo "test/deps-stale-apt.sh: with stale apt lists test/deps.sh ran apt-get update once and fetched the kernels it then named"
