#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/check-series.sh [--series-dir DIR] [--skip-build | --objects-only]
#:
#: Per-patch checks of the series, on the branch scripts/apply.sh made in the
#: kernel tree (the fetched one, or KERNEL_SRC):
#:   header       scripts/patch-rules.tsv (From, Subject, why-body, Signed-off-by)
#:   checkpatch   scripts/checkpatch.pl --strict: no error, warning or check
#:                (types in scripts/checkpatch.allow excepted, with reasons)
#:   export       patches/ and series match the branch (scripts/export.sh --check)
#:   apply        git am and quilt push -a, no fuzz, no offset
#:   build        every prefix of the series compiles the objects its patch
#:                touches for x86_64 with W=1 and sparse (C=1), with no new
#:                warning in a touched file compared with the base
#:   kernel-doc   scripts/kernel-doc -none -Wall: no new warning in a touched file
#: The build check reuses the configured build of scripts/build-kernel.sh
#: (run first, it is built if missing) and leaves it at the series' tip.
#:
#:   --skip-build   skip the build check
#:   --objects-only build, before the check, only the directories of the C
#:                  files the series touches (kernel/sched/), not the whole
#:                  guest kernel: the same per-prefix check for a tree whose
#:                  kernel nothing else boots (the 6.12 backport in CI)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sdir="" skip_build=0 objects_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--series-dir) sdir=$2; shift 2 ;;
	--skip-build) skip_build=1; shift ;;
	--objects-only) objects_only=1; shift ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

resolve_series require
mapfile -t patches < <(series_patches "$sdir")
n=${#patches[@]}

# --- header rules -----------------------------------------------------------
check_header() {
	local p=$1 w msg info field op arg text bad=0
	w=$(mktemp -d "${TMPDIR:-/tmp}/spb-hdr.XXXXXX")
	git mailinfo "$w/msg" "$w/patch" <"$p" >"$w/info"
	grep -v '^Signed-off-by:\|^[A-Za-z-]*-by:\|^Link:\|^Fixes:\|^Cc:' "$w/msg" >"$w/body"
	grep '^Signed-off-by:' "$w/msg" >"$w/sob" || true
	sed -n 's/^Author: //p' "$w/info" >"$w/author"
	sed -n 's/^Email: //p' "$w/info" >"$w/email"
	sed -n 's/^Subject: //p' "$w/info" >"$w/subject"
	while IFS=$'\t' read -r field op arg msg; do
		case $field in ''|'#'*) continue ;; esac
		text=$w/$field
		[ -f "$text" ] || { echo "patch-rules.tsv: unknown field $field"; bad=1; continue; }
		case $op in
		present) [ -s "$text" ] || { echo "$msg"; bad=1; } ;;
		match) grep -Eq -- "$arg" "$text" || { echo "$msg"; bad=1; } ;;
		nomatch) ! grep -Eq -- "$arg" "$text" || { echo "$msg"; bad=1; } ;;
		maxlen) [ "$(wc -L <"$text")" -le "$arg" ] || { echo "$msg"; bad=1; } ;;
		minwords) [ "$(wc -w <"$text")" -ge "$arg" ] || { echo "$msg"; bad=1; } ;;
		sob-is-author)
			[ "$(tail -n1 "$w/sob")" = "Signed-off-by: $(cat "$w/author") <$(cat "$w/email")>" ] ||
				{ echo "$msg"; bad=1; } ;;
		*) echo "patch-rules.tsv: unknown op $op"; bad=1 ;;
		esac
	done <"$SPB_ROOT/scripts/patch-rules.tsv"
	rm -rf "$w"
	return $bad
}

# --- MAINTAINERS coverage ------------------------------------------------------
# Every file the series adds must be covered by a MAINTAINERS entry that
# names linux-pm, checked with get_maintainer.pl in a worktree at the tip.
tipwt=$(worktree_for "$tree" series-tip "$(git -C "$tree" rev-parse "$SPB_BRANCH")")
added_files() {
	git apply --summary "$@" | sed -n 's/^ create mode [0-9]* //p'
}
uncovered() {
	local f
	for f in "$@"; do
		(cd "$tipwt" && scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f" 2>&1) |
			grep -q 'linux-pm@vger.kernel.org' || echo "$f"
	done
}
# MAINTAINERS.snippet: each F: line must be in its entry at the tip.
snippet_applied() {
	local entry="" line
	while IFS= read -r line; do
		case $line in
		'#'*|'') continue ;;
		F:*)
			awk -v e="$entry" -v l="$line" '
				$0 == e { inside = 1; next }
				inside && $0 == "" { inside = 0 }
				inside && $0 == l { found = 1 }
				END { exit !found }' "$tipwt/MAINTAINERS" ||
				{ echo "not in '$entry': $line"; return 1; } ;;
		*) entry=$line ;;
		esac
	done <"$SPB_ROOT/MAINTAINERS.snippet"
}
check "maintainers: MAINTAINERS.snippet is applied by the series" snippet_applied

mapfile -t added < <(added_files "${patches[@]}")
if [ ${#added[@]} -gt 0 ]; then
	miss=$(uncovered "${added[@]}")
	if [ -z "$miss" ]; then
		pass "maintainers: ${#added[@]} added file(s) covered by a linux-pm entry"
	else
		echo "$miss" | sed 's/^/      not covered: /'
		fail "maintainers: added files without a linux-pm MAINTAINERS entry"
	fi
fi

log "header rules and checkpatch --strict on $n patches"
ignore=$(grep -v '^#' "$SPB_ROOT/scripts/checkpatch.allow" | awk 'NF {print $1}' | paste -sd, -)
for p in "${patches[@]}"; do
	b=$(basename "$p")
	check "header $b" check_header "$p"
	# checkpatch asks about MAINTAINERS whenever a patch adds a file; that
	# is answered when get_maintainer.pl finds the files covered.
	pignore=$ignore
	mapfile -t added < <(added_files "$p")
	if [ ${#added[@]} -gt 0 ] && [ -z "$(uncovered "${added[@]}")" ]; then
		pignore=${pignore:+$pignore,}FILE_PATH_CHANGES
	fi
	check "checkpatch $b" "$tree/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--show-types ${pignore:+--ignore "$pignore"} "$p"
done

log "export and apply"
check "export: patches/ match branch $SPB_BRANCH" "$SPB_ROOT/scripts/export.sh" --check --series-dir "$sdir"
check "apply: git am and quilt, no fuzz or offset" "$SPB_ROOT/scripts/apply.sh" --check --series-dir "$sdir"

# --- per-prefix build and kernel-doc ----------------------------------------
git -C "$tree" rev-parse -q --verify "refs/heads/$SPB_BRANCH" >/dev/null ||
	die "no branch $SPB_BRANCH in $tree: run scripts/apply.sh first"
mapfile -t commits < <(git -C "$tree" rev-list --reverse "$base..$SPB_BRANCH")
[ ${#commits[@]} = "$n" ] || die "branch $SPB_BRANCH has ${#commits[@]} commits, the series $n: run scripts/export.sh or scripts/apply.sh --force"

all_touched=$(git -C "$tree" diff --name-only "$base" "$SPB_BRANCH" | sort -u)

# Warnings of FILES in LOG, without line and column numbers, so that the
# same warning at another line compares equal.
warnings_of() {
	local logf=$1; shift
	local f
	for f in "$@"; do
		{ grep -E "(^|/)$f:[0-9]+(:[0-9]+)?: (warning|error)" "$logf" || true; } |
			sed -E "s|^.*($f):[0-9]+(:[0-9]+)?: |\1: |"
	done | sort -u
}

kdoc_warnings() {
	local wt=$1; shift
	local f
	for f in "$@"; do
		case $f in *.c|*.h) ;; *) continue ;; esac
		[ -f "$wt/$f" ] || continue
		{ (cd "$wt" && scripts/kernel-doc -none -Wall "$f" 2>&1) || true; } |
			sed -E "s|^.*($f):[0-9]+:? |\1: |; s/ line [0-9]+//"
	done | sort -u
}

# Check NAME: the warnings on stdin that BASELINE does not have are new.
report_new() {
	local baseline=$1 name=$2 what=${3:-} new
	new=$(comm -23 - "$baseline")
	if [ -n "$new" ]; then
		echo "$new" | sed 's/^/      /'
		fail "$name: new warnings"
	else
		pass "$name${what:+ $what}"
	fi
}

# Objects that depend on FILES, from the dependency lists kbuild keeps.
objects_for() {
	local out=$1; shift
	local f o
	for f in "$@"; do
		case $f in *.c|*.h|*.S) ;; *) continue ;; esac
		# Not kbuild's: the selftests build their helpers themselves
		# (scripts/vm-test.sh checks that build).
		case $f in tools/*|samples/*) continue ;; esac
		o=$(grep -rlF --include='.*.o.cmd' "$f" "$out" 2>/dev/null |
			sed -E "s|^$out/||; s|/\.([^/]*)\.o\.cmd$|/\1.o|" | grep -v '^\.' || true)
		if [ -z "$o" ] && [ "${f%.c}" != "$f" ]; then
			o=${f%.c}.o
		fi
		[ -n "$o" ] && echo "$o"
	done | grep -v -e '^vmlinux' -e '\.mod\.o$' -e '^scripts/' | sort -u
}

if [ $skip_build = 1 ]; then
	log "build check skipped (--skip-build)"
	[ "$SPB_FAILED" = 0 ] || exit 1
	exit 0
fi

name=x86_64-guest
# Logs and the build of a tree other than mainline's carry its prefix.
pfx=$(tree_prefix "$tree")
wt=$SPB_CACHE/wt/$pfx$name
out=$wt/_build
# What a build of the series tip builds: the kernel, or the directories
# of the C files the series touches.
tipbuild=()
if [ $objects_only = 1 ]; then
	for d in $(printf '%s\n' $all_touched | grep '\.c$' | grep -v '^tools/' |
		xargs -r -n1 dirname | sort -u); do
		tipbuild+=(--target "$d/")
	done
	[ ${#tipbuild[@]} -gt 0 ] || die "the series touches no C file outside tools/: nothing to build"
	log "building ${tipbuild[*]} at the series tip (--objects-only)"
	"$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" "${tipbuild[@]}" >/dev/null
elif [ ! -f "$out/vmlinux" ]; then
	log "no full build yet: building the series tip first"
	"$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" >/dev/null
fi

sparse=$("$SPB_ROOT/scripts/get-sparse.sh")
log "baseline: touched objects at the base with W=1 C=1 ($sparse)"
wt=$(worktree_for "$tree" "$name" "$base")
mapfile -t objs < <(objects_for "$out" $all_touched)
blog=$SPB_CACHE/${pfx}bisect-base.log
kmake "$wt" "$out" "$blog" -j"$SPB_JOBS" W=1 C=1 CHECK="$sparse" "${objs[@]}" ||
	die "the base does not build (see $blog)"
# kbuild turns C=1 off, with only a warning, when sparse is too old.
grep -q 'specified, but' "$blog" && die "kbuild disabled sparse: $(grep 'specified, but' "$blog")"
grep -q '  CHECK ' "$blog" || die "sparse did not run on the base (see $blog)"
warnings_of "$blog" $all_touched >"$SPB_CACHE/${pfx}bisect-base.warn"
kdoc_warnings "$wt" $all_touched >"$SPB_CACHE/${pfx}kdoc-base.warn"

i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	b=$(basename "${patches[$((i - 1))]}")
	wt=$(worktree_for "$tree" "$name" "$c")
	mapfile -t touched < <(git -C "$tree" diff --name-only "$c^" "$c")
	mapfile -t objs < <(objects_for "$out" "${touched[@]}")
	if [ ${#objs[@]} = 0 ]; then
		pass "build $i/$n $b (no object touched)"
	else
		log "prefix $i/$n: ${objs[*]} (W=1 C=1)"
		plog=$SPB_CACHE/${pfx}bisect-$i.log
		if ! (kmake "$wt" "$out" "$plog" -j"$SPB_JOBS" W=1 C=1 CHECK="$sparse" "${objs[@]}") 2>/dev/null; then
			grep -m 20 -E 'error|warning' "$plog" | sed 's/^/      /' || true
			fail "build $i/$n $b: does not compile (log: $plog)"
		elif ! grep -q '  CHECK ' "$plog"; then
			fail "build $i/$n $b: sparse did not run (log: $plog)"
		else
			warnings_of "$plog" "${touched[@]}" |
				report_new "$SPB_CACHE/${pfx}bisect-base.warn" "build $i/$n $b" "(W=1, sparse)"
		fi
	fi
	kdoc_warnings "$wt" "${touched[@]}" |
		report_new "$SPB_CACHE/${pfx}kdoc-base.warn" "kernel-doc $i/$n $b"
done

# Leave the build at the tip, as scripts/build-kernel.sh made it.
log "restoring the build at the series tip"
"$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" ${tipbuild[@]+"${tipbuild[@]}"} >/dev/null

[ "$SPB_FAILED" = 0 ] || { warn "$SPB_FAILED check(s) failed"; exit 1; }
log "all checks passed"
