#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/install-deps.sh
#:
#: Install, with apt-get, the Debian packages the scripts need (a build
#: toolchain for the kernel, ccache, quilt, QEMU, busybox-static, ...).
#: Does nothing when they are all present; needs root otherwise.
#:
#:   --list   print the package list, one a line, and install nothing
#:            (scripts/check-commands.py checks every command against it)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
list=0
case ${1:-} in
-h|--help) usage_from "$0"; exit 0 ;;
--list) list=1 ;;
"") ;;
*) die "unknown argument '$1' (see --help)" ;;
esac

pkgs=(build-essential bc bison flex libelf-dev libssl-dev cpio kmod xz-utils
	zstd python3 perl git ccache quilt file rsync apt mawk shfmt shellcheck mmdebstrap mount qemu-system-x86 qemu-system-arm acpica-tools dwarves
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross busybox-static bash-static
	debian-archive-keyring gnuplot-nox fio dbench rt-app e2fsprogs
	python3-dkim python3-dnspython
	python3-requests python3-patatt git-filter-repo python3-sphinx
	python3-sphinx-rtd-theme python3-yaml python3-ply python3-git)
if [ $list = 1 ]; then
	printf '%s\n' "${pkgs[@]}"
	exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	log "all ${#pkgs[@]} packages present"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]}; run as root, or: sudo apt-get install ${missing[*]}"
log "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
quiet "${TMPDIR:-/tmp}/spb-apt-update.log" apt-get update
quiet "${TMPDIR:-/tmp}/spb-apt-install.log" apt-get install -y --no-install-recommends "${missing[@]}"
