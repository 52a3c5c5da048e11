#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/b4-checkpatch.sh < PATCH
#:
#: The per-patch check of "b4 prep --check" for this series (set as
#: b4.prep-perpatch-check-cmd by scripts/submit.sh), run by b4 in the kernel
#: tree with the patch on standard input: scripts/checkpatch.pl --strict
#: with the same waivers as scripts/check-series.sh, and no others: the
#: types in scripts/checkpatch.allow, and FILE_PATH_CHANGES ("does
#: MAINTAINERS need updating?") only when get_maintainer.pl finds every file
#: the patch adds covered by an entry that names linux-pm.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in -h|--help) sed -n 's/^#: \{0,1\}//p' "$0"; exit 0 ;; esac
[ -x scripts/checkpatch.pl ] || { echo "run in the kernel tree (no scripts/checkpatch.pl here)" >&2; exit 2; }

p=$(mktemp "${TMPDIR:-/tmp}/spb-b4check.XXXXXX")
trap 'rm -f "$p"' EXIT
cat >"$p"

ignore=$(grep -v '^#' "$root/scripts/checkpatch.allow" | awk 'NF {print $1}' | paste -sd, -)
covered=1 n=0
while read -r f; do
	n=$((n + 1))
	scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f" 2>/dev/null |
		grep -q 'linux-pm@vger.kernel.org' || covered=0
done < <(git apply --summary "$p" | sed -n 's/^ create mode [0-9]* //p')
[ $n -gt 0 ] && [ $covered = 1 ] && ignore=${ignore:+$ignore,}FILE_PATH_CHANGES

# checkpatch checks SPDX lines with scripts/spdxcheck.py in a kernel tree;
# spdxcheck refuses a worktree of a bare repository (GitPython reads its
# core.bare) with a traceback on stderr, which b4 counts as errors. There
# (scripts/submit.sh --onto a bare clone), check without the tree, as
# scripts/check-series.sh always does.
notree=()
[ "$(git config --bool core.bare 2>/dev/null)" != true ] || notree=(--no-tree)
# Debian's python3 has the modules spdxcheck.py needs (python3-ply,
# python3-git); a python3 of one's own earlier in PATH may not.
PATH=/usr/bin:$PATH exec ./scripts/checkpatch.pl -q --terse --no-summary --mailback --strict \
	"${notree[@]}" --showfile ${ignore:+--ignore "$ignore"} "$p"
