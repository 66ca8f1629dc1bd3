#!/usr/bin/env bash
# test/deps.sh: install and fetch what the emulated-CXL end-to-end tests need.
#
#   - Debian packages qemu-system-x86 and busybox-static (apt-get, as root);
#   - the newest linux-image-6.12.*+deb12-amd64 and the 6.1 kernel that
#     linux-image-amd64 depends on, fetched with `apt-get download` and
#     unpacked with `dpkg -x` into test/.cache/kernels/PACKAGE/.
#
# The apt lists may be missing or older than the mirror (a fresh machine):
# when apt-get install fails, apt-cache does not know a kernel package, or
# apt-get download fails (the lists name a version the mirror no longer
# has), it runs apt-get update once, as root, and tries again.
#
# It writes test/.cache/kernels.tsv (series, package, vmlinuz, config) and is
# idempotent: a second run with everything present takes well under a second
# unless E2E_REFRESH=1 asks it to look for a newer 6.12 package.
# Both .ci/run and the Go harness (test/e2e_test.go) call it.
set -euo pipefail
cd "$(dirname "$0")"
cache="$PWD/.cache"
kdir="$cache/kernels"
manifest="$cache/kernels.tsv"
export DEBIAN_FRONTEND=noninteractive

die() { echo "test/deps.sh: $*" >&2; exit 1; }

# apt_update runs apt-get update, at most once per run: it returns 1
# without running it when it ran already (a second one would not help).
apt_updated=0
apt_update() {
	((apt_updated == 0)) || return 1
	apt_updated=1
	apt-get -o DPkg::Lock::Timeout=600 update -q >&2
}

apt_install() {
	[ "$(id -u)" = 0 ] || die "missing $*; run as root or install them: apt-get install $*"
	command -v apt-get >/dev/null || die "missing $* and apt-get is not available (not Debian?)"
	echo "test/deps.sh: installing $*" >&2
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$@" >&2 ||
		{ apt_update &&
			apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$@" >&2; } ||
		die "apt-get could not install $*"
}

missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
# busybox-static, not busybox: the initramfs needs a static binary.
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed' || missing+=(busybox-static)
if ((${#missing[@]})); then apt_install "${missing[@]}"; fi

# find_kernels prints the two package names (6.12 newest, 6.1 of
# linux-image-amd64), or "-" for a series apt-cache does not know. apt-cache
# fails outright when the lists are empty (a fresh machine, or after
# apt-get clean): that is "does not know" too, not a reason to exit.
find_kernels() {
	local k612 k61
	k612=$({ apt-cache search --names-only '^linux-image-6\.12\.[0-9.]+\+deb12-amd64$' 2>/dev/null || true; } |
		awk '{print $1}' | sort -V | tail -n1)
	k61=$({ apt-cache depends linux-image-amd64 2>/dev/null || true; } |
		awk '/Depends: linux-image-6\.1\./ {print $2; exit}')
	echo "${k612:--} ${k61:--}"
}

# kernel_pkgs sets k612 and k61 to find_kernels' names, after an apt-get
# update when the apt lists are too old to list them (a fresh machine's
# lists can predate the newest 6.12 package).
kernel_pkgs() {
	read -r k612 k61 < <(find_kernels)
	if [ "$k612" = - ] || [ "$k61" = - ]; then
		[ "$(id -u)" = 0 ] || die "apt-cache finds no 6.12 or 6.1 kernel package; run apt-get update as root"
		if ((apt_updated == 0)); then
			echo "test/deps.sh: apt lists lack the kernel packages; running apt-get update" >&2
			apt_update || die "apt-get update failed"
			read -r k612 k61 < <(find_kernels)
		fi
	fi
	[ "$k612" != - ] || die "apt-cache finds no linux-image-6.12.*+deb12-amd64, even after apt-get update"
	[ "$k61" != - ] || die "apt-cache finds no 6.1 kernel that linux-image-amd64 depends on, even after apt-get update"
}

# fetch PACKAGE unpacks it into $kdir/PACKAGE unless it is there already.
# It returns 1 when apt-get download fails (its error is in $cache/download.log).
fetch() {
	local pkg=$1 dest="$kdir/$1" tmp
	if [ -e "$dest/.complete" ]; then return; fi
	[ "$(id -u)" = 0 ] || command -v apt-get >/dev/null || die "cannot fetch $pkg"
	tmp=$(mktemp -d "$cache/fetch.XXXXXX")
	echo "test/deps.sh: fetching $pkg" >&2
	(cd "$tmp" && apt-get download "$pkg") >&2 2>"$cache/download.log" || { rm -rf "$tmp"; return 1; }
	rm -rf "$dest"
	dpkg -x "$tmp"/*.deb "$dest" || { rm -rf "$tmp"; die "dpkg -x of $pkg failed"; }
	rm -rf "$tmp"
	touch "$dest/.complete"
}

mkdir -p "$kdir"
if [ -s "$manifest" ] && [ "${E2E_REFRESH:-0}" != 1 ] && awk -F'\t' '{ if (system("test -r " $3)) exit 1 }' "$manifest"; then
	cat "$manifest"
	exit 0
fi

# The lists can name a kernel version the mirror no longer has (stale
# lists): then apt-get download fails, and an apt-get update, and the
# names it gives, fix it.
kernel_pkgs
if ! { fetch "$k612" && fetch "$k61"; }; then
	[ "$(id -u)" = 0 ] ||
		die "apt-get download failed ($(tail -n1 "$cache/download.log")); the apt lists may be stale: run apt-get update as root"
	((apt_updated == 0)) || { cat "$cache/download.log" >&2; die "apt-get download failed, after apt-get update"; }
	echo "test/deps.sh: apt-get download failed ($(tail -n1 "$cache/download.log")); the apt lists may be stale: running apt-get update and retrying" >&2
	apt_update || die "apt-get update failed"
	kernel_pkgs
	for pkg in "$k612" "$k61"; do
		fetch "$pkg" || { cat "$cache/download.log" >&2; die "apt-get download $pkg failed even after apt-get update"; }
	done
fi
: >"$manifest.tmp"
for series_pkg in "6.12 $k612" "6.1 $k61"; do
	read -r series pkg <<<"$series_pkg"
	fetch "$pkg"
	vmlinuz=$(ls "$kdir/$pkg"/boot/vmlinuz-* 2>/dev/null | head -n1)
	config=$(ls "$kdir/$pkg"/boot/config-* 2>/dev/null | head -n1)
	[ -r "$vmlinuz" ] || die "$pkg has no boot/vmlinuz-*"
	printf '%s\t%s\t%s\t%s\n' "$series" "$pkg" "$vmlinuz" "$config" >>"$manifest.tmp"
done
mv "$manifest.tmp" "$manifest"
cat "$manifest"
