#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/main.sh
#:
#: The main job, from a fresh Debian 12 machine: install the packages it
#: needs, fetch the default base kernel (Debian's linux-source-7.3), apply
#: the series as a branch of the cached tree, and build it with the guest
#: configuration. Prints where the kernel image is.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case ${1:-} in -h|--help) usage_from "$0"; exit 0 ;; esac

S=$SPB_ROOT/scripts
log "step 1/4: packages"
"$S/install-deps.sh"
log "step 2/4: base kernel"
tree=$("$S/fetch-kernel.sh")
log "step 3/4: apply the series"
"$S/apply.sh"
log "step 4/4: build (about 6 minutes on 2 cores when cold, seconds when warm)"
out=$("$S/build-kernel.sh" --tree "$tree")
log "done: $out/arch/x86/boot/bzImage (Linux $(tree_version "$tree") with the series, branch $SPB_BRANCH in $tree)"
