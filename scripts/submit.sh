#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/submit.sh --from "Name <email>" [--out DIR]
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
#:      entries and linux-pm, signed off by --from and by nobody else, and
#:      the cover letter with the benchmark table.
#: Then send them yourself (b4 send in that worktree, or git send-email).
#:
#:   --from ID   the submitter, "Full Name <address>" (or SPB_SUBMITTER);
#:               required: the tooling never signs for anyone
#:   --out DIR   where to write the mails
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ident=${SPB_SUBMITTER:-} outdir=""
while [ $# -gt 0 ]; do
	case $1 in
	--from) ident=${2:?--from needs "Name <email>"}; shift 2 ;;
	--out) outdir=${2:?--out needs a directory}; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$ident" ] || die "who submits? pass --from \"Full Name <address>\" (or set SPB_SUBMITTER)"
sub_name=$(printf '%s' "$ident" | sed -n 's/^\([^<>]*[^ <>]\) *<\([^<> ]*@[^<> ]*\)>$/\1/p')
sub_email=$(printf '%s' "$ident" | sed -n 's/^\([^<>]*[^ <>]\) *<\([^<> ]*@[^<> ]*\)>$/\2/p')
[ -n "$sub_name" ] && [ -n "$sub_email" ] || die "--from '$ident' is not \"Full Name <address>\""
[ -n "$outdir" ] || outdir=$SPB_CACHE/submission
cover=$SPB_ROOT/submission/cover-letter.txt
[ -f "$cover" ] || die "no cover letter $cover"

S=$SPB_ROOT/scripts
log "step 1/6: packages, base kernel, series branch, b4"
"$S/install-deps.sh"
tree=$("$S/fetch-kernel.sh" --quiet)
"$S/apply.sh"
resolve_series require
b4=$("$S/get-b4.sh")
log "b4 $("$b4" --version)"

# Every git that b4 runs sees the submitter and our b4 settings; the
# repository's and the user's configuration are left alone.
export GIT_CONFIG_COUNT=4
export GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=$sub_name
export GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=$sub_email
export GIT_CONFIG_KEY_2=b4.prep-perpatch-check-cmd GIT_CONFIG_VALUE_2=$S/b4-checkpatch.sh
# b4 refuses unsigned mail for its web endpoint, which it picks when no
# SMTP server is set; none is used, as the mails are only written out.
export GIT_CONFIG_KEY_3=sendemail.smtpserver GIT_CONFIG_VALUE_3=/bin/false
export GIT_AUTHOR_NAME=$sub_name GIT_AUTHOR_EMAIL=$sub_email
export GIT_COMMITTER_NAME=$sub_name GIT_COMMITTER_EMAIL=$sub_email

log "step 2/6: branch b4/schedutil-perf-bias, re-signed by $sub_name <$sub_email>"
wt=$(worktree_for "$tree" submit "$(git -C "$tree" rev-parse "$SPB_BRANCH")")
cd "$wt"
git checkout -q -B b4/schedutil-perf-bias "$(git -C "$tree" rev-parse "$SPB_BRANCH")"
# For each commit: drop the Signed-off-by of its author (the project
# identity), add the submitter's, make the submitter the author.
resign=$(mktemp "${TMPDIR:-/tmp}/spb-resign.XXXXXX")
trap 'rm -f "$resign"' EXIT
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
git rebase -q --exec "$resign" "$base"
n=$(git rev-list --count "$base..HEAD")
[ "$n" = "$(series_patches "$sdir" | wc -l)" ] || die "re-signed branch has $n commits"

log "step 3/6: b4 prep: enroll, cover letter, To/Cc"
quiet "$SPB_CACHE/submit-enroll.log" "$b4" prep --enroll "$base"
ed=$(mktemp "${TMPDIR:-/tmp}/spb-cover.XXXXXX")
trap 'rm -f "$ed" "$resign"' EXIT
printf '#!/bin/sh\ncat %q >"$1"\n' "$cover" >"$ed"
chmod +x "$ed"
EDITOR=$ed quiet "$SPB_CACHE/submit-cover.log" "$b4" prep --edit-cover
quiet "$SPB_CACHE/submit-tocc.log" "$b4" prep --auto-to-cc
sed -n 's/^    + /    /p' "$SPB_CACHE/submit-tocc.log" >&2

log "step 4/6: b4 prep --check"
"$b4" prep --check >"$SPB_CACHE/submit-check.log" 2>&1 || true
sed 's/\x1b\[[0-9;]*m//g' "$SPB_CACHE/submit-check.log" | grep -E '^(●|  ●)|^Success' | sed 's/^/    /' >&2
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$SPB_CACHE/submit-check.log" | grep '^Success:' | tail -n1)
case $summary in
"Success: $n, Warning: 0, Error: 0") pass "b4 prep --check: $summary" ;;
*) fail "b4 prep --check: ${summary:-no summary} (log: $SPB_CACHE/submit-check.log)" ;;
esac

log "step 5/6: b4 send --output-dir $outdir (writes the mails, sends nothing)"
rm -rf "$outdir"
mkdir -p "$outdir"
quiet "$SPB_CACHE/submit-send.log" "$b4" send --no-sign --output-dir "$outdir"

log "step 6/6: checking the mails"
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
log "the mails are in $outdir (nothing was sent); the b4 branch is b4/schedutil-perf-bias in $wt"
[ "$SPB_FAILED" = 0 ]
