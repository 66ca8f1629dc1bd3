#!/usr/bin/env bash
# test/deps-fresh-apt.sh: run test/deps.sh as on a fresh machine whose apt
# lists are empty (or older than the newest kernel package), and check that
# it runs apt-get update itself and finds both kernels (issue 15, item 1).
#
# The machine's own apt lists are not touched: APT_CONFIG points apt at an
# empty lists directory and a package cache in a temp dir, which deps.sh's
# apt-get and apt-cache calls inherit. E2E_REFRESH=1 makes deps.sh look the
# kernels up even when its manifest exists; kernels already fetched into
# test/.cache are reused. Needs root and the network (apt-get update, about
# 30 MB of lists). .ci/run calls it before the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "test/deps-fresh-apt.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (deps.sh runs apt-get update)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial"
cat >"$tmp/apt.conf" <<CONF
Dir::State::Lists "$tmp/lists/";
Dir::Cache::pkgcache "$tmp/pkgcache.bin";
Dir::Cache::srcpkgcache "$tmp/srcpkgcache.bin";
CONF
export APT_CONFIG="$tmp/apt.conf"

# The premise: with these lists apt knows no kernel package at all.
if apt-cache show linux-image-amd64 >/dev/null 2>&1; then
	die "apt still finds linux-image-amd64 with empty lists; APT_CONFIG was not honoured"
fi

E2E_REFRESH=1 bash test/deps.sh >"$tmp/manifest" 2>"$tmp/log" || {
	cat "$tmp/log" >&2
	die "test/deps.sh failed with empty apt lists"
}
grep -q 'apt lists lack the kernel packages; running apt-get update' "$tmp/log" ||
	{ cat "$tmp/log" >&2; die "test/deps.sh did not run apt-get update for the empty lists"; }
series=$(cut -f1 "$tmp/manifest" | tr '\n' ' ')
[ "$series" = "6.12 6.1 " ] || { cat "$tmp/manifest" >&2; die "manifest lists series '$series', want '6.12 6.1 '"; }
echo "test/deps-fresh-apt.sh: with empty apt lists test/deps.sh ran apt-get update and found $(cut -f2 "$tmp/manifest" | tr '\n' ' ')"
