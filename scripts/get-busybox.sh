#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/get-busybox.sh [--arch x86_64|arm64] [--bash]
#:
#: Print the path of a statically linked busybox for the guest's
#: architecture, for the initramfs of scripts/vm-run.sh. x86_64 uses the
#: host's (apt-get install busybox-static); for arm64, Debian 12's
#: busybox-static:arm64 is downloaded once with a private apt configuration
#: (the system's apt and its architectures are never changed) and kept in
#: $SPB_CACHE/tools/busybox-arm64.
#:
#:   --bash   a statically linked bash instead (package bash-static), for
#:            the kernel's cpufreq kselftest main.sh; arm64's is kept in
#:            $SPB_CACHE/tools/bash-static-arm64
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=x86_64 pkg=busybox-static bin=bin/busybox
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=${2:?--arch needs a value}; shift 2 ;;
	--bash) pkg=bash-static bin=bin/bash-static; shift ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

is_static() {
	[ -x "$1" ] && file -L "$1" | grep -q 'statically linked'
}

case $arch in
x86_64)
	bb=$(command -v "$(basename "$bin")" || true)
	[ -n "$bb" ] && is_static "$bb" ||
		die "a static $(basename "$bin") is needed: run scripts/install-deps.sh ($pkg)"
	echo "$bb"
	exit 0
	;;
arm64) ;;
*) die "unknown architecture '$arch': use x86_64 or arm64" ;;
esac

dest=$SPB_CACHE/tools/busybox-arm64
[ "$pkg" = busybox-static ] || dest=$SPB_CACHE/tools/$pkg-arm64
bb=$dest/$bin
if is_static "$bb"; then
	echo "$bb"
	exit 0
fi
# One download at a time (scripts/vm-test.sh boots guests side by side, and
# each boot asks for busybox), and the tools appear whole or not at all: a
# cold CI run booted a guest whose busybox was still being unpacked ("Failed
# to execute /init (error -14)").
mkdir -p "$SPB_CACHE/tools"
exec 9>"$SPB_CACHE/tools/arm64-download.lock"
flock 9
if is_static "$bb"; then
	echo "$bb"
	exit 0
fi
log "downloading $pkg:arm64 from Debian 12 (once)"
aptdir=$SPB_CACHE/apt-arm64
archive=$(debian_archive)
apt_private "$aptdir" "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive bookworm main" arm64
quiet "$aptdir/update.log" apt-get "${APT_OPTS[@]}" update
rm -f "$aptdir"/debs/"$pkg"_*.deb
(cd "$aptdir/debs" && quiet "$aptdir/download.log" apt-get "${APT_OPTS[@]}" download "$pkg:arm64")
deb=$(ls "$aptdir"/debs/"$pkg"_*_arm64.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || die "$pkg:arm64 not downloaded (see $aptdir/download.log)"
tmp=$(mktemp -d "$SPB_CACHE/tools/.$pkg-arm64.XXXXXX")
dpkg-deb -x "$deb" "$tmp"
is_static "$tmp/$bin" || die "$deb has no static $bin"
rm -rf "$dest"
mv "$tmp" "$dest"
log "$pkg for arm64: $(basename "$deb")"
echo "$bb"
