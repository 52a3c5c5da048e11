#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/submit.sh --from "Name <email>" [--onto GITDIR REF]
#:                          [--series-dir DIR] [--out DIR]
#:
#: Prepare the series for linux-pm with b4, sending nothing. In a worktree
#: of the cached kernel tree (cache/wt/submit), on the exact base:
#:   1. branch b4/schedutil-perf-bias = the series, every patch re-signed
#:      by the submitter: author and Signed-off-by become --from, the
#:      project identity's Signed-off-by is dropped (it is not a person);
#:   2. b4 prep --enroll, the cover letter from submission/cover-letter.txt,
#:      b4 prep --auto-to-cc (To/Cc from scripts/get_maintainer.pl: CPU
#:      FREQUENCY SCALING FRAMEWORK, SCHEDULER, and the documentation and
#:      kselftest entries for those patches);
#:   3. b4 prep --check, whose per-patch check is scripts/b4-checkpatch.sh
#:      (checkpatch --strict, the waivers of scripts/check-series.sh): it
#:      must report no warning and no error;
#:   4. b4 send --output-dir DIR (a dry run: b4 writes the mails instead of
#:      sending them): one mail file per patch and the
#:      cover letter, for review (default DIR: cache/submission);
#:   5. checks of the mails: every patch To/Cc the maintainers of both
#:      entries and linux-pm, signed off by --from and by nobody else, the
#:      cover letter with the benchmark table and with the base as its
#:      base-commit.
#: Then send them yourself (b4 send in that worktree, or git send-email).
#:
#: With --onto, the same on your own kernel tree, at REF, and first:
#:   a. the series is replayed onto REF with git am, as branch
#:      schedutil-perf-bias-onto, in a worktree of GITDIR in the cache
#:      (cache/onto/<name of GITDIR>), which is also where steps 1-4 run;
#:      GITDIR's checked-out branch and files are not touched. The series
#:      is the one for the kernel version at REF (patches/ for 7.3 and
#:      later, backports/7.2, backports/6.12). The first patch that does
#:      not apply stops the run: see docs/submitting.md;
#:   b. scripts/check-series.sh (per-patch checks) and scripts/kunit.sh
#:      (x86_64 and i386) on that branch.
#: The mails go to cache/<name of GITDIR>-submission. The two branches
#: (schedutil-perf-bias-onto, b4/schedutil-perf-bias) are made anew on
#: each run; a branch of that name the script did not leave stops it.
#:
#:   --from ID          the submitter, "Full Name <address>" (or
#:                      SPB_SUBMITTER); required: the tooling never signs
#:                      for anyone
#:   --onto GITDIR REF  your kernel tree (a clone; bare or not) and the
#:                      commit, tag or branch to base the series on
#:   --series-dir DIR   the series to submit (default: chosen from the
#:                      tree's kernel version)
#:   --out DIR          where to write the mails
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ident=${SPB_SUBMITTER:-} outdir="" onto="" ref="" sdir=""
while [ $# -gt 0 ]; do
	case $1 in
	--from) ident=${2:?--from needs "Name <email>"}; shift 2 ;;
	--onto)
		[ $# -ge 3 ] || die "--onto needs your kernel tree and a ref: --onto GITDIR REF"
		onto=$2 ref=$3
		case $ref in -*) die "--onto $onto: '$ref' is not a ref; use --onto GITDIR REF" ;; esac
		shift 3 ;;
	--series-dir) sdir=${2:?--series-dir needs a directory}; shift 2 ;;
	--out) outdir=${2:?--out needs a directory}; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$ident" ] || die "who submits? pass --from \"Full Name <address>\" (or set SPB_SUBMITTER)"
sub_name=$(printf '%s' "$ident" | sed -n 's/^\([^<>]*[^ <>]\) *<\([^<> ]*@[^<> ]*\)>$/\1/p')
sub_email=$(printf '%s' "$ident" | sed -n 's/^\([^<>]*[^ <>]\) *<\([^<> ]*@[^<> ]*\)>$/\2/p')
if [ -z "$sub_name" ] || [ -z "$sub_email" ]; then
	die "--from '$ident' is not \"Full Name <address>\""
fi
if [ -n "$sdir" ]; then
	[ -f "$sdir/series" ] || die "--series-dir $sdir has no series file"
	sdir=$(cd "$sdir" && pwd)
fi
cover=$SPB_ROOT/submission/cover-letter.txt
[ -f "$cover" ] || die "no cover letter $cover"
S=$SPB_ROOT/scripts

tmp=$(mktemp -d "${TMPDIR:-/tmp}/spb-submit.XXXXXX")
guarded=0
on_exit() {
	[ "$guarded" = 0 ] || record_branches
	rm -rf "$tmp"
}
trap on_exit EXIT
# PASS/FAIL lines of this run and of the checking scripts it runs.
if [ -z "${SPB_RESULTS:-}" ]; then
	export SPB_RESULTS=$tmp/results
	: >"$SPB_RESULTS"
fi

stepno=0 nsteps=6
[ -z "$onto" ] || nsteps=9
step() {
	stepno=$((stepno + 1))
	log "step $stepno/$nsteps [${SECONDS}s]: $*"
}

# --- --onto: the submitter's tree --------------------------------------------
# The branches made in GITDIR. They are recreated on each run, so a branch
# of that name that this script did not leave there (its tips are kept in
# the cache) is the submitter's and stops the run.
onto_branch=schedutil-perf-bias-onto
b4_branch=b4/schedutil-perf-bias
branches_ok() {
	local b tip w
	for b in "$onto_branch" "$b4_branch"; do
		tip=$(git -C "$onto" rev-parse -q --verify "refs/heads/$b") || continue
		grep -qxF "$b $tip" "$owned" 2>/dev/null ||
			die "$onto has a branch $b that is not as scripts/submit.sh left it (it is yours, or was changed since): rename it (git -C $onto branch -m $b $b-old) or delete it, then run again"
		w=$(git -C "$onto" worktree list --porcelain |
			awk -v r="branch refs/heads/$b" '/^worktree /{ w = substr($0, 10) } $0 == r { print w }')
		[ -z "$w" ] || [ "$w" -ef "$kwt" ] ||
			die "branch $b is checked out in $w: check out another branch there (the script recreates $b), then run again"
	done
}
record_branches() {
	local b tip
	mkdir -p "$(dirname "$owned")"
	for b in "$onto_branch" "$b4_branch"; do
		tip=$(git -C "$onto" rev-parse -q --verify "refs/heads/$b") && echo "$b $tip"
	done >"$owned" || true
}

# A worktree of GITDIR at REF in the cache, named as GITDIR so that the
# worktrees and logs the other scripts make for it carry that name.
onto_worktree() {
	local common
	common=$(git -C "$onto" rev-parse --path-format=absolute --git-common-dir)
	if [ -e "$kwt/.git" ]; then
		[ "$(git -C "$kwt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" = "$common" ] ||
			die "$kwt is a worktree of another repository also named $(basename "$onto"): remove it (git worktree remove --force $kwt, in that repository) or rename your tree's directory"
		# A run stopped in the middle may have left a git am or rebase.
		git -C "$kwt" am --quit >/dev/null 2>&1 || true
		git -C "$kwt" rebase --quit >/dev/null 2>&1 || true
		git -C "$kwt" checkout -q --detach -f "$refc"
	else
		rm -rf "$kwt"
		mkdir -p "$(dirname "$kwt")"
		git -C "$onto" worktree add -f -q --detach "$kwt" "$refc" >&2
	fi
}

# Apply the series on the branch with scripts/apply.sh (git am, as CI does);
# name the first patch that does not apply.
replay() {
	local alog line num subj file total
	alog=$SPB_CACHE/$(tree_prefix "$tree")onto-apply.log
	total=$(series_patches "$sdir" | wc -l)
	log "git am of $total patches onto $ref ($(git -C "$onto" log -1 --format='%h %s' "$refc"))"
	if "$S/apply.sh" --force --series-dir "$sdir" 2>"$alog"; then
		note "branch $onto_branch: $(git -C "$tree" log -1 --format='%h %s' "$onto_branch")"
		return
	fi
	# Leave no branch without the series behind.
	git -C "$tree" checkout -q --detach
	git -C "$tree" branch -q -D "$onto_branch" 2>/dev/null || true
	line=$(grep -m1 '^Patch failed at ' "$alog" || true)
	if [ -z "$line" ]; then
		tail -n 20 "$alog" >&2
		die "scripts/apply.sh could not replay the series onto $ref (above; log: $alog)"
	fi
	num=$(echo "$line" | awk '{ print $4 }')
	subj=${line#Patch failed at "$num" }
	num=$((10#$num))
	file=$(series_patches "$sdir" | sed -n "${num}p")
	grep '^error:' "$alog" | sed 's/^/    /' >&2 || true
	die "patch $num/$total does not apply to $ref ($(git -C "$onto" rev-parse --short "$refc")) in $onto: $(basename "$file") \"$subj\". Rebase the series on your tree and run again with --series-dir (docs/submitting.md, \"When a patch does not apply\"). Your branches and files in $onto are untouched; log: $alog"
}

# Run a checking script as one step: its PASS/FAIL lines count; if it
# stops without one, a FAIL line of our own says so.
run_checks() {
	local name=$1 before
	shift
	before=$(wc -l <"$SPB_RESULTS")
	"$@" && return 0
	grep -q '^FAIL' <(tail -n +$((before + 1)) "$SPB_RESULTS") || fail "$name (stopped, above)"
	SPB_FAILED=$((SPB_FAILED + 1))
}

if [ -n "$onto" ]; then
	[ -d "$onto" ] || die "--onto $onto: no such directory"
	git -C "$onto" rev-parse --git-dir >/dev/null 2>&1 ||
		die "--onto $onto is not a git repository: pass your kernel tree's directory"
	onto=$(cd "$onto" && pwd)
	if ! refc=$(git -C "$onto" rev-parse -q --verify "$ref^{commit}"); then
		# As git switch does: a branch of one remote only, in a clone.
		remote=$(git -C "$onto" for-each-ref --format='%(refname:short)' "refs/remotes/*/$ref")
		[ "$(printf '%s' "$remote" | grep -c .)" = 1 ] ||
			die "no commit '$ref' in $onto: pass the branch, tag or commit to base the series on"
		refc=$(git -C "$onto" rev-parse "$remote^{commit}")
		note "$ref: the remote-tracking branch $remote"
	fi
	kwt=$SPB_CACHE/onto/$(basename "$onto")
	owned=$SPB_CACHE/onto/$(basename "$onto").branches
	branches_ok
	guarded=1
	# The submitter's hooks (a commit-msg hook adding a Change-Id, a
	# post-checkout hook) and commit signing stay out of the series.
	export GIT_CONFIG_COUNT=2
	export GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null
	export GIT_CONFIG_KEY_1=commit.gpgSign GIT_CONFIG_VALUE_1=false
fi

if [ -z "$onto" ]; then
	step "packages, base kernel, series branch, b4"
	"$S/install-deps.sh"
	"$S/fetch-kernel.sh" --quiet >/dev/null
	"$S/apply.sh" ${sdir:+--series-dir "$sdir"}
	resolve_series require
	wt=$(worktree_for "$tree" submit "$(git -C "$tree" rev-parse "$SPB_BRANCH")")
else
	step "packages, b4"
	"$S/install-deps.sh"
fi
b4=$("$S/get-b4.sh")
log "b4 $("$b4" --version)"

if [ -n "$onto" ]; then
	step "the series onto $ref ($(git -C "$onto" rev-parse --short "$refc")) in $onto"
	onto_worktree
	export KERNEL_SRC=$kwt SPB_BASE=$refc SPB_BRANCH=$onto_branch
	resolve_series require
	log "Linux $ver at $ref: the series of $sdir/series"
	replay
	wt=$tree

	step "per-patch checks on $onto_branch (scripts/check-series.sh)"
	run_checks "per-patch checks on $ref in $onto" "$S/check-series.sh" --series-dir "$sdir"
	step "KUnit on $onto_branch, x86_64 and i386 (scripts/kunit.sh)"
	for arch in x86_64 i386; do
		run_checks "KUnit $arch on $ref in $onto" "$S/kunit.sh" --arch "$arch"
	done
fi
# Logs and mails of a --onto run carry the tree's name.
pfx=""
[ -z "$onto" ] || pfx=$(tree_prefix "$tree")
[ -n "$outdir" ] || outdir=$SPB_CACHE/${pfx}submission

# The cover letter's last bullet says what the series was made on, a
# Debian import; on the submitter's tree it says where the series was
# replayed and checked instead.
if [ -n "$onto" ]; then
	python3 - "$cover" "$tmp/cover-letter.txt" "$ref" \
		"$(git -C "$onto" log -1 --format='%h, "%s"' "$refc")" <<'PY'
import sys, textwrap
src, dst, ref, desc = sys.argv[1:]
lines = open(src).read().split('\n')
start = [i for i, l in enumerate(lines) if l.startswith('- The base-commit below is ')]
if len(start) != 1:
    sys.exit('submission/cover-letter.txt: no bullet "- The base-commit below is"'
             ' to say where the series was replayed; restore it')
end = start[0] + 1
while end < len(lines) and lines[end].startswith('  '):
    end += 1
text = (f'The base-commit below is {ref} ({desc}). The series was developed'
        " on Debian's linux-source-7.3 7.3.4 import and replayed onto it with"
        ' git am; its per-patch checks and KUnit pass there. Backports to 6.12'
        " and 7.2 (Debian's trees) exist and pass the same tests.")
bullet = textwrap.wrap(text, 70, initial_indent='- ', subsequent_indent='  ',
                       break_on_hyphens=False, break_long_words=False)
open(dst, 'w').write('\n'.join(lines[:start[0]] + bullet + lines[end:]))
PY
	cover=$tmp/cover-letter.txt
fi

# Every git that b4 runs sees the submitter and our b4 settings; the
# repository's and the user's configuration are left alone.
export GIT_CONFIG_COUNT=6
export GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=$sub_name
export GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=$sub_email
export GIT_CONFIG_KEY_2=b4.prep-perpatch-check-cmd GIT_CONFIG_VALUE_2=$S/b4-checkpatch.sh
# b4 refuses unsigned mail for its web endpoint, which it picks when no
# SMTP server is set; none is used, as the mails are only written out.
export GIT_CONFIG_KEY_3=sendemail.smtpserver GIT_CONFIG_VALUE_3=/bin/false
# Hooks of the tree (a commit-msg hook adding a Change-Id) would change
# the re-signed commits; commit signing would ask for a key.
export GIT_CONFIG_KEY_4=core.hooksPath GIT_CONFIG_VALUE_4=/dev/null
export GIT_CONFIG_KEY_5=commit.gpgSign GIT_CONFIG_VALUE_5=false
export GIT_AUTHOR_NAME=$sub_name GIT_AUTHOR_EMAIL=$sub_email
export GIT_COMMITTER_NAME=$sub_name GIT_COMMITTER_EMAIL=$sub_email

step "branch $b4_branch, re-signed by $sub_name <$sub_email>"
cd "$wt"
git checkout -q -B "$b4_branch" "$(git -C "$tree" rev-parse "$SPB_BRANCH")"
# For each commit: drop the Signed-off-by of its author (the project
# identity), add the submitter's, make the submitter the author.
resign=$tmp/resign
cat >"$resign" <<'RESIGN'
#!/bin/sh
set -e
old=$(git log -1 --format='%an <%ae>')
git log -1 --format=%B | grep -vxF "Signed-off-by: $old" |
	git interpret-trailers --if-exists addIfDifferent \
		--trailer "Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" |
	git commit -q --amend --reset-author --allow-empty -F -
RESIGN
chmod +x "$resign"
quiet "$SPB_CACHE/${pfx}submit-resign.log" git rebase -q --exec "$resign" "$base"
n=$(git rev-list --count "$base..HEAD")
[ "$n" = "$(series_patches "$sdir" | wc -l)" ] || die "re-signed branch has $n commits"

step "b4 prep: enroll, cover letter, To/Cc"
quiet "$SPB_CACHE/${pfx}submit-enroll.log" "$b4" prep --enroll "$base"
ed=$tmp/cover-editor
# An editor that writes the cover letter into the file b4 gives it ($1).
# shellcheck disable=SC2016
printf '#!/bin/sh\ncat %q >"$1"\n' "$cover" >"$ed"
chmod +x "$ed"
EDITOR=$ed quiet "$SPB_CACHE/${pfx}submit-cover.log" "$b4" prep --edit-cover
quiet "$SPB_CACHE/${pfx}submit-tocc.log" "$b4" prep --auto-to-cc
sed -n 's/^    + /    /p' "$SPB_CACHE/${pfx}submit-tocc.log" >&2

step "b4 prep --check"
clog=$SPB_CACHE/${pfx}submit-check.log
"$b4" prep --check >"$clog" 2>&1 || true
sed 's/\x1b\[[0-9;]*m//g' "$clog" | grep -E '^(●|  ●)|^Success' | sed 's/^/    /' >&2
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$clog" | grep '^Success:' | tail -n1)
case $summary in
"Success: $n, Warning: 0, Error: 0") pass "b4 prep --check: $summary" ;;
*) fail "b4 prep --check: ${summary:-no summary} (log: $clog)" ;;
esac

step "b4 send --output-dir $outdir (writes the mails, sends nothing)"
rm -rf "$outdir"
mkdir -p "$outdir"
quiet "$SPB_CACHE/${pfx}submit-send.log" "$b4" send --no-sign --output-dir "$outdir"

step "checking the mails"
# A mail's header, unfolded, then its body.
hdr() { sed '/^$/q' "$1" | sed ':a;N;$!ba;s/\n[ \t]\+/ /g'; }
mails_ok() {
	local f bad=0 h want
	set -- "$outdir"/*.eml
	[ $# = $((n + 1)) ] || { echo "$# mails for $n patches and a cover letter"; return 1; }
	for f in "$outdir"/0000-*.eml; do
		grep -q 'sync I/O: requests to fmax' "$f" ||
			{ echo "$(basename "$f"): no benchmark table"; bad=1; }
	done
	for f in "$@"; do
		h=$(hdr "$f")
		for want in rafael@kernel.org viresh.kumar@linaro.org peterz@infradead.org \
			vincent.guittot@linaro.org linux-pm@vger.kernel.org; do
			echo "$h" | grep -E '^(To|Cc):' | grep -qF "$want" ||
				{ echo "$(basename "$f"): $want not in To/Cc"; bad=1; }
		done
		case $f in */0000-*) continue ;; esac
		grep -qxF "Signed-off-by: $sub_name <$sub_email>" "$f" ||
			{ echo "$(basename "$f"): no Signed-off-by: $sub_name <$sub_email>"; bad=1; }
		if grep '^Signed-off-by:' "$f" | grep -vqxF "Signed-off-by: $sub_name <$sub_email>"; then
			echo "$(basename "$f"): signed off by someone else too"; bad=1
		fi
		echo "$h" | grep -qxF "From: $sub_name <$sub_email>" ||
			{ echo "$(basename "$f"): From is not $sub_name <$sub_email>"; bad=1; }
	done
	return $bad
}
check "mails: $n patches and a cover letter, To/Cc both entries and linux-pm, signed off by the submitter only" mails_ok
# The cover letter names the base the series was prepared on: REF with --onto.
base_ok() {
	local got
	got=$(sed -n 's/^base-commit: *//p' "$outdir"/0000-*.eml | head -n1)
	[ "$got" = "$base" ] || { echo "the cover letter says base-commit: ${got:-(none)}"; return 1; }
}
check "cover letter: base-commit: $base${ref:+ ($ref)}" base_ok
# With --onto, the cover letter's text names that base too.
base_text_ok() {
	local text
	# The bullet is wrapped: compare its words.
	text=$(tr -s ' \n' '  ' <"$outdir"/0000-*.eml)
	if [ "${text#*replayed onto it with git am}" = "$text" ] ||
		[ "${text#*import, without history}" != "$text" ]; then
		echo "the cover letter does not say where the series was replayed"
		return 1
	fi
}
[ -z "$onto" ] || check "cover letter: says the series was replayed onto $ref" base_text_ok

log "the mails are in $outdir (nothing was sent); the b4 branch is $b4_branch in $wt"
log "done in $((SECONDS / 60)) min $((SECONDS % 60)) s"
[ "$SPB_FAILED" = 0 ] || die "$SPB_FAILED check(s) failed (FAIL lines above): fix them before sending"
