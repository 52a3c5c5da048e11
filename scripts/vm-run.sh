#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/vm-run.sh --kernel IMAGE [options] [--] COMMAND
#:
#: Boot IMAGE in QEMU with a busybox initramfs, run COMMAND (a shell command
#: line, run in /payload with busybox sh) and power off. Prints the serial
#: console; exits with COMMAND's exit status, or 125 if the guest never
#: reported one (crash, hang, timeout).
#:
#:   --kernel IMAGE   bzImage (x86_64) or Image (arm64) to boot
#:   --arch ARCH      x86_64 (default) or arm64 (qemu-system-aarch64 -M virt)
#:   --payload DIR    copied to /payload in the guest (repeatable: DIR:NAME
#:                    copies DIR to /payload/NAME)
#:   --cpus N         vCPUs (default 2)
#:   --mem MB         memory (default 512)
#:   --append ARGS    extra kernel command line
#:   --disk MB        attach a scratch virtio-blk disk of MB MiB (/dev/vda)
#:   --disk-cache M   its QEMU cache mode (default none: flushes reach the
#:                    host's disk; unsafe: they return at once, so I/O
#:                    latency does not depend on the host's disk)
#:   --timeout S      kill the guest after S seconds (default 300)
#:   --log FILE       also save the console to FILE
#:   --icount SHIFT   TCG only: guest time advances 2^SHIFT ns per guest
#:                    instruction, and jumps to the next timer when every
#:                    vCPU is idle (-icount shift=SHIFT,sleep=off), so that
#:                    timings inside the guest do not depend on the host
#:   --cpu MODEL      x86_64 only: QEMU's CPU model (default max)
#:   --acpitable FILE x86_64 only: an ACPI table for the guest, e.g. an SSDT
#:                    from scripts/make-ssdt.sh (repeatable)
#:
#: Acceleration: KVM when it works on this host, otherwise TCG. The check
#: boots the kernel once under KVM and caches the answer per host in
#: $SPB_CACHE/kvm-usable; SPB_ACCEL=tcg or SPB_ACCEL=kvm skips it.
#: TCG runs single-threaded (SPB_TCG_THREAD=multi to change): QEMU 7.2's
#: multi-threaded TCG runs stale int3 instructions after the kernel patches
#: a static branch (text_poke_bp), an "Oops: int3" seen in 6 of 6 boots that
#: toggled a mainline tracepoint 300 times, and in 0 of 6 single-threaded.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel="" arch=x86_64 cpus=2 mem=512 append="" disk=0 timeout_s=300 logf="" icount="" dcache=none
cpu_model=max
payloads=() acpitables=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--arch) arch=$2; shift 2 ;;
	--payload) payloads+=("$2"); shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--log) logf=$2; shift 2 ;;
	--icount) icount=$2; shift 2 ;;
	--disk-cache) dcache=$2; shift 2 ;;
	--cpu) cpu_model=$2; shift 2 ;;
	--acpitable) acpitables+=("$2"); shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || die "no command to run in the guest (see --help)"
cmd="$*"
[ -f "$kernel" ] || die "--kernel '$kernel' not found: build it with scripts/build-kernel.sh"
case $arch in
x86_64) qemu=qemu-system-x86_64 pkg=qemu-system-x86 console=ttyS0 ;;
arm64) qemu=qemu-system-aarch64 pkg=qemu-system-arm console=ttyAMA0 ;;
*) die "unknown --arch '$arch': use x86_64 or arm64" ;;
esac
command -v $qemu >/dev/null || die "$qemu missing: apt-get install $pkg"
busybox=$("$SPB_ROOT/scripts/get-busybox.sh" --arch "$arch")

work=$(mktemp -d "${TMPDIR:-/tmp}/spb-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The initramfs: busybox, /init, the payload.
root=$work/root
mkdir -p "$root"/{bin,proc,sys,dev,tmp,payload}
cp "$busybox" "$root/bin/busybox"
for p in "${payloads[@]}"; do
	src=${p%%:*} dst=""
	[ "$src" != "$p" ] && dst=${p#*:}
	[ -e "$src" ] || die "payload $src not found"
	if [ -n "$dst" ]; then
		mkdir -p "$root/payload/$(dirname "$dst")"
		cp -a "$src" "$root/payload/$dst"
	else
		cp -a "$src"/. "$root/payload/"
	fi
done
printf '%s\n' "$cmd" >"$root/payload/.cmd"
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
ln -s /proc/self/fd /dev/fd
ln -s fd/0 /dev/stdin
ln -s fd/1 /dev/stdout
ln -s fd/2 /dev/stderr
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "SPB-GUEST-UP"
cd /payload
sh /payload/.cmd
echo "SPB-GUEST-EXIT $?"
sync
reboot -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

qemu_args=(-m "$mem" -smp "$cpus" -nographic -no-reboot -kernel "$kernel"
	-initrd "$work/initrd.gz"
	-append "console=$console panic=-1 oops=panic loglevel=6 $append")
# arm64: a Cortex-A57 has no activity monitors (AMU), so frequency
# invariance comes from the cpufreq driver, and TCG emulates it faster than
# "max" (no pointer authentication).
if [ "$arch" = arm64 ]; then
	qemu_args+=(-M virt -cpu cortex-a57)
else
	qemu_args+=(-cpu "$cpu_model")
	for t in ${acpitables[@]+"${acpitables[@]}"}; do
		[ -r "$t" ] || die "no ACPI table $t"
		qemu_args+=(-acpitable "file=$t")
	done
fi
if [ "$disk" != 0 ]; then
	truncate -s "${disk}M" "$work/disk.img"
	qemu_args+=(-drive "file=$work/disk.img,if=none,id=scratch,format=raw,cache=$dcache"
		-device virtio-blk-pci,drive=scratch)
fi

accel=${SPB_ACCEL:-}
# KVM only runs guests of the host's architecture.
[ "$arch" = x86_64 ] || accel=tcg
if [ -z "$accel" ]; then
	stamp=$SPB_CACHE/kvm-usable
	if [ -f "$stamp" ]; then
		accel=$(cat "$stamp")
	elif [ -w /dev/kvm ]; then
		log "checking whether KVM works here (once; cached in $stamp)"
		if timeout 60 qemu-system-x86_64 -accel kvm -m 256 -smp 1 -nographic \
			-no-reboot -kernel "$kernel" -initrd "$work/initrd.gz" \
			-append "console=ttyS0 panic=-1 rdinit=/bin/true" 2>&1 |
			grep -q -m1 'Kernel panic\|Run /bin/true'; then
			accel=kvm
		else
			accel=tcg
		fi
		mkdir -p "$SPB_CACHE"
		echo "$accel" >"$stamp"
		note "KVM $([ "$accel" = kvm ] && echo works || echo does not work): using $accel"
	else
		accel=tcg
	fi
fi
if [ -n "$icount" ]; then
	case $icount in ''|*[!0-9]*) die "--icount needs a shift, 0..10" ;; esac
	accel=tcg
	qemu_args+=(-icount "shift=$icount,sleep=off")
fi
[ "$accel" = tcg ] && qemu_args+=(-accel "$SPB_TCG_ACCEL") || qemu_args+=(-accel kvm)

out=$work/console.log
set +e
timeout --foreground -k 5 "$timeout_s" $qemu "${qemu_args[@]}" </dev/null >"$out" 2>&1
qrc=$?
set -e
tr -d '\r' <"$out" >"$out.clean"
[ -n "$logf" ] && cp "$out.clean" "$logf"
cat "$out.clean"
rc=$(sed -n 's/^SPB-GUEST-EXIT \([0-9]*\)$/\1/p' "$out.clean" | tail -n1)
if [ -z "$rc" ]; then
	[ $qrc = 124 ] && warn "guest timed out after ${timeout_s}s"
	warn "the guest did not report an exit status (qemu exit $qrc)"
	exit 125
fi
exit "$rc"
