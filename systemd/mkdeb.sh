#!/usr/bin/env bash
# mkdeb.sh VERSION OUTDIR [BINARY]: package a built kvtier binary (default
# ./kvtier), the unit, the default config and shell completions as a Debian
# package with dpkg-deb. Prints the path of the package.
set -euo pipefail
version=${1:?version}
out=${2:?output directory}
bin=$(realpath "${3:-kvtier}")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
# A release tag (v1.2.3) gives 1.2.3; anything else (a commit hash from git
# describe) gives 0.0~gitHASH, which sorts before every release.
version=${version#v}
if [[ ! $version =~ ^[0-9]+\.[0-9]+ ]]; then version="0.0~git${version}"; fi
version=${version//-/+}
arch=$(dpkg --print-architecture)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 0755 "$root"

install -D -m 0755 "$bin" "$root/usr/bin/kvtier"
install -D -m 0644 "$src/systemd/kvtier.service" "$root/lib/systemd/system/kvtier.service"
install -D -m 0640 "$src/systemd/kvtier.hcl" "$root/etc/kvtier/kvtier.hcl"
install -D -m 0644 "$src/systemd/grafana/kvtier.json" "$root/usr/share/kvtier/grafana/kvtier.json"
install -D -m 0644 "$src/systemd/kernel-tunables.conf" "$root/usr/share/kvtier/kernel-tunables.conf"
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
	"$root/usr/share/fish/vendor_completions.d" "$root/usr/share/doc/kvtier"
"$bin" completion bash >"$root/usr/share/bash-completion/completions/kvtier"
"$bin" completion zsh >"$root/usr/share/zsh/vendor-completions/_kvtier"
"$bin" completion fish >"$root/usr/share/fish/vendor_completions.d/kvtier.fish"
chmod 0644 "$root"/usr/share/*/*/kvtier "$root"/usr/share/zsh/vendor-completions/_kvtier \
	"$root"/usr/share/fish/vendor_completions.d/kvtier.fish
install -m 0644 "$src/README.md" "$root/usr/share/doc/kvtier/README.md"
gzip -9n "$root/usr/share/doc/kvtier/README.md"
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
cat >"$root/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
if [ "$1" = configure ] && [ -z "$2" ]; then
	echo "kvtier: the service is installed but not enabled; edit /etc/kvtier/kvtier.hcl, then" >&2
	echo "kvtier:   systemctl enable --now kvtier" >&2
fi
exit 0
SCRIPT
cat >"$root/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
	systemctl stop kvtier.service 2>/dev/null || true
	if [ "$1" = remove ]; then systemctl disable kvtier.service 2>/dev/null || true; fi
fi
exit 0
SCRIPT
cat >"$root/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
if [ "$1" = purge ]; then
	rm -rf /var/lib/kvtier
	rmdir --ignore-fail-on-non-empty /etc/kvtier 2>/dev/null || true
fi
exit 0
SCRIPT
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"
deb="$out/kvtier_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"
