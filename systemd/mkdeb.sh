#!/usr/bin/env bash
# mkdeb.sh VERSION OUTDIR [BINARY]: package a built kvtier binary (default
# ./kvtier), the unit, the default config, shell completions, man pages,
# copyright and changelog as a Debian package with dpkg-deb. Prints the
# path of the package. The maintainer scripts and lintian overrides are in
# systemd/debian.
# mkdeb.sh --version VERSION: print the Debian version VERSION (git
# describe's output) gives.
set -euo pipefail

# deb_version GIT_DESCRIBE: a Debian version that sorts like the commits. A
# release tag (v1.2.3) gives 1.2.3 and commits after it 1.2.3+4+gHASH;
# without a tag, 0.0~gitYYYYMMDDHHMMSS.HASH (the commit's UTC time), which
# sorts by time and before every release. -dirty becomes +dirty.
deb_version() {
	local v=${1#v}
	if [[ ! $v =~ ^[0-9]+\.[0-9]+ ]]; then
		v="0.0~git$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S).$v"
	fi
	echo "${v//-/+}"
}
if [[ ${1:-} == --version ]]; then
	: "${SOURCE_DATE_EPOCH:=$(date +%s)}"
	deb_version "${2:?version}"
	exit 0
fi
version=${1:?version}
out=${2:?output directory}
bin=$(realpath "${3:-kvtier}")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
# SOURCE_DATE_EPOCH dates the changelog and the man pages (reproducible
# builds); by default it is the commit's time.
: "${SOURCE_DATE_EPOCH:=$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)}"
export SOURCE_DATE_EPOCH
version=$(deb_version "$version")
arch=$(dpkg --print-architecture)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 0755 "$root"

install -D -m 0755 "$bin" "$root/usr/bin/kvtier"
install -D -m 0644 "$src/systemd/kvtier.service" "$root/lib/systemd/system/kvtier.service"
install -D -m 0644 "$src/systemd/kvtier.hcl" "$root/etc/kvtier/kvtier.hcl"
install -D -m 0644 "$src/systemd/grafana/kvtier.json" "$root/usr/share/kvtier/grafana/kvtier.json"
install -D -m 0644 "$src/systemd/kernel-tunables.conf" "$root/usr/share/kvtier/kernel-tunables.conf"
install -D -m 0644 "$src/systemd/metrics-network.conf" "$root/usr/share/kvtier/metrics-network.conf"
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
	"$root/usr/share/fish/vendor_completions.d" "$root/usr/share/doc/kvtier"
"$bin" completion bash >"$root/usr/share/bash-completion/completions/kvtier"
"$bin" completion zsh >"$root/usr/share/zsh/vendor-completions/_kvtier"
"$bin" completion fish >"$root/usr/share/fish/vendor_completions.d/kvtier.fish"
chmod 0644 "$root"/usr/share/*/*/kvtier "$root"/usr/share/zsh/vendor-completions/_kvtier \
	"$root"/usr/share/fish/vendor_completions.d/kvtier.fish
install -m 0644 "$src/README.md" "$root/usr/share/doc/kvtier/README.md"
gzip -9n "$root/usr/share/doc/kvtier/README.md"
install -m 0644 "$src/systemd/debian/copyright" "$root/usr/share/doc/kvtier/copyright"
install -D -m 0644 "$src/systemd/debian/lintian-overrides" "$root/usr/share/lintian/overrides/kvtier"
# A native package's changelog is changelog.gz (Debian policy 12.7).
changelog_date=$(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
cat >"$root/usr/share/doc/kvtier/changelog" <<CHANGELOG
kvtier ($version) unstable; urgency=medium

  * Built from commit $commit of https://github.com/kvtier/kvtier; see the
    repository's history for the changes.

 -- kvtier maintainers <maintainers@kvtier.invalid>  $changelog_date
CHANGELOG
gzip -9n "$root/usr/share/doc/kvtier/changelog"
chmod 0644 "$root/usr/share/doc/kvtier/changelog.gz"
# Man pages from the command tree, one per command.
"$bin" man "$root/usr/share/man/man1"
gzip -9n "$root"/usr/share/man/man1/*.1
chmod 0644 "$root"/usr/share/man/man1/*.1.gz
install -D -m 0644 "$src/systemd/examples/kvtier-reference.hcl" "$root/usr/share/doc/kvtier/examples/kvtier-reference.hcl"

install -d "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: kvtier
Version: $version
Architecture: $arch
Maintainer: kvtier maintainers <maintainers@kvtier.invalid>
Section: admin
Priority: optional
Recommends: systemd
Suggests: bash-completion
Installed-Size: $(du -sk "$root" | cut -f1)
Homepage: https://github.com/kvtier/kvtier
Description: KV-cache tiering between DRAM and CXL memory
 kvtier samples page accesses of LLM inference engines' KV-cache regions
 with eBPF, scores blocks with pluggable eviction policies and moves them
 between DRAM and CXL NUMA nodes with move_pages(2) under budgets. It also
 ships a trace-driven simulator for evaluating the same policies.
CONTROL
echo /etc/kvtier/kvtier.hcl >"$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
install -m 0755 "$src/systemd/debian/postinst" "$src/systemd/debian/prerm" "$src/systemd/debian/postrm" "$root/DEBIAN/"
deb="$out/kvtier_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"
