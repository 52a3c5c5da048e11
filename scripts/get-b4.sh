#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/get-b4.sh
#:
#: Print the path of a b4 that has "b4 prep --check" (0.14 or later).
#: Debian 12 ships b4 0.12, which lacks it; Debian 13's b4 (architecture
#: all, pure Python, its dependencies are in Debian 12) is downloaded once
#: with a private apt configuration (the system's apt is never touched)
#: and kept in $SPB_CACHE/tools/b4, with a wrapper that runs it with
#: Debian's /usr/bin/python3 (which sees the Debian python3-* packages).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case ${1:-} in -h|--help) usage_from "$0"; exit 0 ;; esac

dir=$SPB_CACHE/tools/b4
wrapper=$dir/b4
if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
	echo "$wrapper"
	exit 0
fi
for m in dkim dns requests patatt; do
	/usr/bin/python3 -c "import $m" 2>/dev/null ||
		die "python3 module $m missing: run scripts/install-deps.sh (or apt-get install python3-dkim python3-dnspython python3-requests python3-patatt git-filter-repo)"
done
log "downloading b4 from Debian 13 (once)"
aptdir=$SPB_CACHE/apt-trixie
archive=$(debian_archive)
apt_private "$aptdir" "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive trixie main"
quiet "$aptdir/update.log" apt-get "${APT_OPTS[@]}" update
rm -f "$aptdir"/debs/b4_*.deb
(cd "$aptdir/debs" && quiet "$aptdir/download.log" apt-get "${APT_OPTS[@]}" download b4)
deb=$(ls "$aptdir"/debs/b4_*_all.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || die "b4 not downloaded (see $aptdir/download.log)"
rm -rf "$dir" && mkdir -p "$dir"
dpkg-deb -x "$deb" "$dir/root"
cat >"$wrapper" <<WRAP
#!/bin/sh
PYTHONPATH=$dir/root/usr/lib/python3/dist-packages\${PYTHONPATH:+:\$PYTHONPATH} exec /usr/bin/python3 $dir/root/usr/bin/b4 "\$@"
WRAP
chmod +x "$wrapper"
"$wrapper" --version >/dev/null || die "$deb does not run here"
log "b4 $("$wrapper" --version) from $(basename "$deb")"
echo "$wrapper"
