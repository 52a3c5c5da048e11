#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/main.sh [--reps N]
#:
#: The main job, from a fresh Debian 12 machine: install the packages it
#: needs, fetch the default base kernel (Debian's linux-source-7.3), apply
#: the series as a branch of the cached tree, build it with the guest
#: configuration, boot it in QEMU with the test cpufreq driver, and print,
#: for the default tunables and for performance_bias=1 side by side, how
#: fast schedutil's frequency requests answer a synchronous I/O loop, a
#: wakeup after idle and a CPU hog (median, min and max of N runs, default
#: 5).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

reps=5
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=${2:?--reps needs a number}; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

S=$SPB_ROOT/scripts
log "step 1/5: packages"
"$S/install-deps.sh"
log "step 2/5: base kernel"
tree=$("$S/fetch-kernel.sh")
log "step 3/5: apply the series"
"$S/apply.sh"
log "step 4/5: build (about 10 minutes on 2 cores when cold, seconds when warm)"
out=$("$S/build-kernel.sh" --tree "$tree")
log "built $(kernel_image "$out") (Linux $(tree_version "$tree") with the series, branch $SPB_BRANCH in $tree)"
log "step 5/5: boot it in QEMU with the test cpufreq driver and measure"
"$S/vm-test.sh" --tree "$tree" --response-table --reps "$reps"
