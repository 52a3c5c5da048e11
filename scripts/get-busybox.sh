#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/get-busybox.sh [--arch x86_64|arm64]
#:
#: Print the path of a statically linked busybox for the guest's
#: architecture, for the initramfs of scripts/vm-run.sh. x86_64 uses the
#: host's (apt-get install busybox-static); for arm64, Debian 12's
#: busybox-static:arm64 is downloaded once with a private apt configuration
#: (the system's apt and its architectures are never changed) and kept in
#: $SPB_CACHE/tools/busybox-arm64.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=x86_64
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=${2:?--arch needs a value}; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

is_static() {
	[ -x "$1" ] && file -L "$1" | grep -q 'statically linked'
}

case $arch in
x86_64)
	bb=$(command -v busybox || true)
	[ -n "$bb" ] && is_static "$bb" ||
		die "a static busybox is needed: apt-get install busybox-static"
	echo "$bb"
	exit 0
	;;
arm64) ;;
*) die "unknown architecture '$arch': use x86_64 or arm64" ;;
esac

bb=$SPB_CACHE/tools/busybox-arm64/bin/busybox
if is_static "$bb"; then
	echo "$bb"
	exit 0
fi
log "downloading busybox-static:arm64 from Debian 12 (once)"
aptdir=$SPB_CACHE/apt-arm64
archive=$(debian_archive)
apt_private "$aptdir" "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive bookworm main" arm64
quiet "$aptdir/update.log" apt-get "${APT_OPTS[@]}" update
rm -f "$aptdir"/debs/busybox-static_*.deb
(cd "$aptdir/debs" && quiet "$aptdir/download.log" apt-get "${APT_OPTS[@]}" download busybox-static:arm64)
deb=$(ls "$aptdir"/debs/busybox-static_*_arm64.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || die "busybox-static:arm64 not downloaded (see $aptdir/download.log)"
rm -rf "$SPB_CACHE/tools/busybox-arm64"
dpkg-deb -x "$deb" "$SPB_CACHE/tools/busybox-arm64"
is_static "$bb" || die "$deb has no static bin/busybox"
log "busybox for arm64: $(basename "$deb")"
echo "$bb"
