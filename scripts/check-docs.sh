#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/check-docs.sh [--sphinxdirs "DIR..."] [--names "NAME..."]
#:                              [--section ID] [--rebuild]
#:
#: Build, with Sphinx, the documentation the series touches, at the base and
#: with the series (branch $SPB_BRANCH of the kernel tree: the fetched one,
#: or KERNEL_SRC), and check:
#:   warnings   no warning or error (Sphinx, docutils, kernel-doc) that
#:              mentions a file the series touches is new with the series
#:              (line numbers ignored); a second line does the same for the
#:              other files of the build (a reference the series broke)
#:   html       the built page's section ID (default: schedutil) names the
#:              new tunables (iowait_boost idle_boost up_threshold
#:              performance_bias)
#:   ABI        the kernel's ABI parser (what Sphinx renders
#:              Documentation/ABI with) reports no new warning with the
#:              series, and each name has an entry under Documentation/ABI
#:              in a file the series touches, with date, kernel version and
#:              contact
#: The docs build is the narrowest one that covers every touched
#: Documentation file: SPHINXDIRS is the closest directory with an index.rst
#: above each touched .rst (admin-guide/pm for cpufreq.rst). A non-.rst file
#: counts by the .rst that includes it; a file included only literally
#: (kernel-parameters.txt) is not parsed by Sphinx and needs no build.
#:
#: Worktrees docs-base and docs-series in the cache; the build of each is in
#: its _docs directory (make O=). Sphinx reports the warnings of a file only
#: when it reads it, so a tree that changed is rebuilt in full (-E, a few
#: seconds for admin-guide/pm); an unchanged tree reuses its build and the
#: warnings it logged.
#:
#: Sphinx is Debian's (python3-sphinx, python3-yaml; scripts/install-deps.sh)
#: for /usr/bin/python3, ahead of any other python3 on PATH;
#: SPB_DOCS_PYTHON=/path/to/python3 picks another one (a venv: its
#: sphinx-build must be beside it).
#:
#:   --sphinxdirs "D..."  build these directories of Documentation/ instead
#:                        (e.g. admin-guide: about 3 minutes more)
#:   --names "N..."       the names the section must contain
#:   --section ID         the section (HTML id) to look in; "" for the page
#:   --rebuild            ignore the saved builds, rebuild both trees
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dirs_opt="" names="iowait_boost idle_boost up_threshold performance_bias"
section=schedutil rebuild=0
while [ $# -gt 0 ]; do
	case $1 in
	--sphinxdirs) [ $# -ge 2 ] || die "--sphinxdirs needs a value"; dirs_opt=$2; shift 2 ;;
	--names) [ $# -ge 2 ] || die "--names needs a value"; names=$2; shift 2 ;;
	--section) [ $# -ge 2 ] || die "--section needs a value"; section=$2; shift 2 ;;
	--rebuild) rebuild=1; shift ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

resolve_series require
git -C "$tree" rev-parse -q --verify "refs/heads/$SPB_BRANCH" >/dev/null ||
	die "no branch $SPB_BRANCH in $tree: run scripts/apply.sh first"
tip=$(git -C "$tree" rev-parse "$SPB_BRANCH")
pfx=$(tree_prefix "$tree")

# --- Sphinx -----------------------------------------------------------------
py=${SPB_DOCS_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || die "$py not found: install python3 (Debian: apt-get install python3), or set SPB_DOCS_PYTHON"
sphinx_ver=$("$py" -c 'import sphinx; print(sphinx.__version__)' 2>/dev/null) ||
	die "no Sphinx for $py: run scripts/install-deps.sh as root (python3-sphinx python3-sphinx-rtd-theme python3-yaml), or set SPB_DOCS_PYTHON to a python3 that has Sphinx"
"$py" -c 'import yaml' 2>/dev/null ||
	die "no PyYAML for $py (the kernel's parser_yaml extension needs it): apt-get install python3-yaml"
pybin=$(dirname "$py")
[ -x "$pybin/sphinx-build" ] || die "no sphinx-build beside $py: apt-get install python3-sphinx"
# The kernel's minimum, from the conf.py of the tip.
need=$(git -C "$tree" show "$tip:Documentation/conf.py" | sed -n 's/^needs_sphinx *= *"\([0-9.]*\)".*/\1/p')
if [ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "$sphinx_ver" | sort -V | head -n1)" != "$need" ]; then
	die "Sphinx $sphinx_ver is older than the $need this kernel needs: install a newer one in a venv (python3 -m venv V && V/bin/pip install -r Documentation/sphinx/requirements.txt) and set SPB_DOCS_PYTHON=V/bin/python3"
fi
log "Sphinx $sphinx_ver ($pybin/sphinx-build, $("$py" -V 2>&1)); the kernel needs ${need:-?}"

# One docs build at a time, also across concurrent runs of this script.
lock=$SPB_CACHE/${pfx}docs.lock
mkdir -p "$SPB_CACHE"
exec 9>"$lock"
if ! flock -n 9; then
	log "another check-docs.sh holds $lock: waiting for it"
	flock 9
fi

# --- what the series touches ------------------------------------------------
mapfile -t touched < <(git -C "$tree" diff --name-only "$base" "$tip")
mapfile -t tdocs < <(git -C "$tree" diff --name-only "$base" "$tip" -- Documentation)
if [ ${#tdocs[@]} = 0 ]; then
	pass "docs: the series touches no file in Documentation/"
	exit 0
fi
log "the series touches ${tdocs[*]}"

# The closest directory above Documentation/FILE (relative) with an index.rst
# at COMMIT: the narrowest SPHINXDIRS entry that builds it.
sphinxdir_of() {
	local commit=$1 d
	d=$(dirname "$2")
	while [ "$d" != . ] && [ "$d" != Documentation ]; do
		git -C "$tree" cat-file -e "$commit:$d/index.rst" 2>/dev/null && { echo "${d#Documentation/}"; return; }
		d=$(dirname "$d")
	done
	echo .
}

# The .rst files that include FILE at COMMIT, one per line as "RST literal"
# or "RST parsed" (an include with :literal:, or a literalinclude, is shown
# verbatim: Sphinx does not parse it).
includers_of() {
	local commit=$1 f=$2 name rst
	name=$(basename "$f")
	{ git -C "$tree" grep -l -E "^\s*\.\. +(include|literalinclude|kernel-include)::.*$name\s*$" "$commit" -- 'Documentation/*.rst' 2>/dev/null || true; } |
		sed "s|^$commit:||" | while read -r rst; do
		git -C "$tree" show "$commit:$rst" | awk -v n="$name" -v r="$rst" '
			function done_() { if (inc) print r, (lit ? "literal" : "parsed"); inc = 0 }
			inc && /^[ \t]+:/ { if ($0 ~ /:literal:/ || $0 ~ /:code:/) lit = 1; next }
			inc { done_() }
			$0 ~ "^[ \t]*\\.\\. +(include|literalinclude|kernel-include)::.*" n "[ \t]*$" {
				inc = 1; lit = ($0 ~ /literalinclude/) }
			END { done_() }'
	done
}

dirs=() notes=() pages=()
for f in "${tdocs[@]}"; do
	git -C "$tree" cat-file -e "$tip:$f" 2>/dev/null || { notes+=("$f: removed by the series"); continue; }
	case $f in
	Documentation/ABI/*)
		notes+=("$f: an ABI file, checked with the kernel's ABI parser below")
		;;
	*.rst)
		dirs+=("$(sphinxdir_of "$tip" "$f")")
		pages+=("$f")
		;;
	*)
		inc=$(includers_of "$tip" "$f")
		if [ -z "$inc" ]; then
			notes+=("$f: no .rst includes it, not part of the Sphinx build")
		elif ! grep -q ' parsed$' <<<"$inc"; then
			notes+=("$f: included literally by $(awk '{print $1}' <<<"$inc" | sort -u | paste -sd' ' -), not parsed by Sphinx")
		else
			while read -r rst kind; do
				[ "$kind" = parsed ] && dirs+=("$(sphinxdir_of "$tip" "$rst")")
			done <<<"$inc"
		fi
		;;
	esac
done
for n in "${notes[@]}"; do note "$n"; done

# Drop directories inside another one of the list: building the outer one
# covers them.
narrowest() {
	local d e keep
	for d in "$@"; do
		keep=1
		for e in "$@"; do
			[ "$e" = "$d" ] && continue
			case $e in
			.) keep=0 ;;
			*) case $d/ in "$e"/*) keep=0 ;; esac ;;
			esac
		done
		if [ $keep = 1 ]; then echo "$d"; fi
	done | sort -u
}
if [ -n "$dirs_opt" ]; then
	read -r -a dirs <<<"$dirs_opt"
	for d in "${dirs[@]}"; do
		git -C "$tree" cat-file -e "$tip:Documentation/${d%/}/index.rst" 2>/dev/null ||
			die "--sphinxdirs $d: Documentation/$d/index.rst does not exist (SPHINXDIRS needs a directory with an index.rst)"
	done
elif [ ${#dirs[@]} = 0 ]; then
	pass "docs: no touched Documentation file is parsed by Sphinx (${tdocs[*]})"
	exit 0
fi
mapfile -t dirs < <(narrowest "${dirs[@]%/}")
sdirs="${dirs[*]}"
log "docs build: SPHINXDIRS=\"$sdirs\""

# --- builds -----------------------------------------------------------------
now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f s", (b - a) / 1e9 }'; }

# Build the docs of worktree NAME at COMMIT; sets wt and out. The stamp
# records what the saved build and its log were made from.
build_docs() {
	local name=$1 commit=$2 t0 stamp blog
	t0=$(now)
	wt=$(worktree_for "$tree" "$name" "$commit")
	out=$wt/_docs
	blog=$out/docs.log
	log "$name: worktree $wt at $(git -C "$tree" log -1 --format='%h %s' "$commit") ($(secs "$t0" "$(now)"))"
	stamp="tree=$(git -C "$wt" rev-parse 'HEAD^{tree}') sphinx=$sphinx_ver python=$py dirs=$sdirs"
	if [ $rebuild = 0 ] && [ -f "$out/docs.ok" ] && [ "$(cat "$out/docs.ok")" = "$stamp" ] &&
	   [ -f "$blog" ] && [ -d "$out/Documentation/output" ]; then
		log "$name: unchanged since its last docs build, reused it and its log ($(secs "$t0" "$(now)"))"
		return
	fi
	rm -f "$out/docs.ok"
	mkdir -p "$out"
	log "$name: building SPHINXDIRS=\"$sdirs\" htmldocs in full (log: $blog)"
	t0=$(now)
	# -E: read every file, so that every warning is reported again. The
	# Makefile's "python3" runs the wrapper: the chosen one comes first.
	if ! (cd "$wt" && PATH="$pybin:$PATH" make -j"$SPB_JOBS" O="$out" \
		SPHINXBUILD="$pybin/sphinx-build" SPHINXDIRS="$sdirs" SPHINXOPTS="-E" \
		htmldocs) >"$blog" 2>&1; then
		tail -n 30 "$blog" | sed 's/^/      /'
		return 1
	fi
	echo "$stamp" >"$out/docs.ok"
	log "$name: built in $(secs "$t0" "$(now)")"
}

# Warnings and errors in the log of the build in WT (OUT), one per line,
# paths relative to the tree: OUT/warnings.raw as they are, and
# OUT/warnings.all without line numbers, sorted (duplicates kept: one more
# of the same warning is a new one). warnings.pairs maps the one to the other.
warnings_in() {
	local wt=$1 out=$2
	{ grep -E '(WARNING|ERROR|CRITICAL|SEVERE)|: (warning|error):' "$out/docs.log" || true; } |
		sed -E 's/\x1b\[[0-9;]*m//g' |
		sed -e "s|$out/||g" -e "s|$wt/||g" >"$out/warnings.raw"
	sed -E 's/(\.[A-Za-z0-9]+|\/[A-Za-z0-9_.-]+):[0-9]+(:[0-9]+)?:/\1:/g; s/\<line [0-9]+/line N/g' \
		"$out/warnings.raw" | paste - "$out/warnings.raw" >"$out/warnings.pairs"
	cut -f1 "$out/warnings.pairs" | sort >"$out/warnings.all"
}
# Show the warnings on stdin (normalised) as the series' log has them, with
# their line numbers.
show_new() {
	awk -F'\t' 'NR == FNR { new[$0] = 1; next } ($1 in new) && !seen[$2]++ { print "      " $2 }' \
		- "$sout/warnings.pairs"
}

# A regex matching a mention of any touched file: its path, and for a .rst
# its Sphinx document name (how references name it).
pat=""
for f in "${touched[@]}"; do
	e=$(printf '%s' "$f" | sed 's/[][\.*^$+?(){}|]/\\&/g')
	pat+="${pat:+|}(^|[^[:alnum:]_-])$e(\$|[^[:alnum:]_.-])"
	case $f in Documentation/*.rst)
		e=$(printf '%s' "${f#Documentation/}" | sed 's/\.rst$//; s/[][\.*^$+?(){}|]/\\&/g')
		pat+="|(^|[^[:alnum:]_-])$e(\\.rst)?(\$|[^[:alnum:]_.-])" ;;
	esac
done

if ! build_docs docs-base "$base"; then
	die "the base kernel's docs do not build with Sphinx $sphinx_ver (log above): fix the Sphinx setup first (scripts/install-deps.sh; a newer Sphinx via SPB_DOCS_PYTHON)"
fi
bwt=$wt bout=$out
warnings_in "$bwt" "$bout"

series_ok=1
build_docs docs-series "$tip" || series_ok=0
swt=$wt sout=$out

if [ $series_ok = 0 ]; then
	fail "docs: $sdirs does not build with the series (log: $sout/docs.log)"
	exit 1
fi
warnings_in "$swt" "$sout"

{ grep -E "$pat" "$bout/warnings.all" || true; } >"$bout/warnings.touched"
{ grep -E "$pat" "$sout/warnings.all" || true; } >"$sout/warnings.touched"
{ grep -vE "$pat" "$bout/warnings.all" || true; } >"$bout/warnings.other"
{ grep -vE "$pat" "$sout/warnings.all" || true; } >"$sout/warnings.other"
nb=$(wc -l <"$bout/warnings.touched") ns=$(wc -l <"$sout/warnings.touched")
nbo=$(wc -l <"$bout/warnings.other") nso=$(wc -l <"$sout/warnings.other")
log "warnings: base $nb in touched files + $nbo elsewhere, series $ns + $nso (logs: $bout/docs.log, $sout/docs.log)"

# Fail with the warnings of KIND (touched, other) that the series adds to
# the base's; WHAT names those files in the messages.
check_new_warnings() {
	local kind=$1 what=$2 nb ns new
	nb=$(wc -l <"$bout/warnings.$kind") ns=$(wc -l <"$sout/warnings.$kind")
	new=$(comm -13 "$bout/warnings.$kind" "$sout/warnings.$kind")
	if [ -z "$new" ]; then
		pass "docs: no new warnings in $what ($nb at base, $ns with the series)"
	else
		show_new <<<"$new"
		fail "docs: $(echo "$new" | wc -l) new warning(s) in $what ($nb at base, $ns with the series; log: $sout/docs.log)"
	fi
}
check_new_warnings touched "the files of $sdirs the series touches"
check_new_warnings other "the other files of $sdirs"

# --- ABI entries -----------------------------------------------------------
# Sphinx renders Documentation/ABI through the kernel's ABI parser (the
# kernel-abi extension of admin-guide/abi-*.rst). Run that parser on both
# trees: its warnings must not grow, and each name must have an entry
# (What: .../schedutil/NAME) in a file the series adds or touches, with a
# date, a kernel version and a contact.
mapfile -t tabi < <(printf '%s\n' "${tdocs[@]}" | grep '^Documentation/ABI/' || true)
if [ ${#tabi[@]} = 0 ]; then
	fail "docs: the series adds no Documentation/ABI entry for its sysfs files (${names// /, })"
else
	# The tree's ABI tool: tools/docs/get_abi.py (7.3), scripts/get_abi.py,
	# or scripts/get_abi.pl (6.12); each has validate and search.
	abi_tool() {
		local t
		for t in tools/docs/get_abi.py scripts/get_abi.py scripts/get_abi.pl; do
			if [ -f "$1/$t" ]; then echo "$t"; return; fi
		done
		return 1
	}
	abi_run() {
		local wt=$1 t
		shift
		t=$(abi_tool "$wt") || return 2
		case $t in
		*.pl) (cd "$wt" && perl "$t" "$1" --dir Documentation/ABI "${@:2}") ;;
		*) (cd "$wt" && python3 "$t" --dir Documentation/ABI "$@") ;;
		esac
	}
	abi_tool "$swt" >/dev/null || die "no ABI tool (tools/docs/get_abi.py, scripts/get_abi.py or .pl) in $swt"
	abi_run "$bwt" validate 2>&1 | sed -E 's/:[0-9]+/:N/g' | sort >"$bout/abi-warnings" || true
	abi_run "$swt" validate 2>&1 | sed -E 's/:[0-9]+/:N/g' | sort >"$sout/abi-warnings" || true
	new=$(comm -13 "$bout/abi-warnings" "$sout/abi-warnings")
	if [ -z "$new" ]; then
		pass "docs: ABI parser ($(abi_tool "$swt") validate): no new warnings ($(wc -l <"$bout/abi-warnings") at base, $(wc -l <"$sout/abi-warnings") with the series)"
	else
		echo "$new" | sed 's/^/      /'
		fail "docs: ABI parser: $(echo "$new" | wc -l) new warning(s) with the series"
	fi
	abi_ok() {
		local n out bad=0 f field
		for n in $names; do
			out=$(abi_run "$swt" search "schedutil/$n\$" 2>&1 || true)
			f=$(printf '%s\n' "$out" | sed -n 's/^Defined on file(s):[[:space:]]*//p' | head -n1)
			if [ -z "$f" ] || ! printf '%s\n' "${tabi[@]}" | grep -qxF "${f#"$swt"/}"; then
				echo "$n: no entry in ${tabi[*]} (found: ${f:-none})"; bad=1; continue
			fi
			for field in 'Kernel version' Date Contact; do
				printf '%s\n' "$out" | grep -qE "^$field:[[:space:]]+[^[:space:]]" ||
					{ echo "$n: entry without $field"; bad=1; }
			done
		done
		return $bad
	}
	check "docs: ABI entries for ${names// /, } in ${tabi[*]}, each with a date, kernel version and contact" abi_ok
fi

# --- the names in the built page --------------------------------------------
# The text of section ID (up to the next section) of each HTML page, tags
# removed; the whole page when ID is empty.
section_text() {
	local html=$1
	[ -f "$html" ] || return 0
	if [ -z "$section" ]; then
		sed 's/<[^>]*>//g' "$html"
	else
		awk -v id="$section" '
			index($0, "<section id=\"" id "\"") { f = 1; print; next }
			f && /<section id="/ { exit }
			f' "$html" | sed 's/<[^>]*>//g'
	fi
}
has_names() {
	local n
	for n in $names; do
		if grep -qw -- "$n" <<<"$1"; then echo "$n"; fi
	done
}
where="page "
[ -z "$section" ] || where="section \"$section\" of "
stext="" btext="" shown=()
for p in "${pages[@]}"; do
	rel=${p#Documentation/}
	rel=${rel%.rst}.html
	t=$(section_text "$sout/Documentation/output/$rel")
	[ -n "$t" ] || continue
	stext+=$t$'\n'
	shown+=("$rel")
	btext+=$(section_text "$bout/Documentation/output/$rel")$'\n'
done
if [ ${#shown[@]} = 0 ]; then
	fail "docs: no built page of ${pages[*]:-the touched files}${section:+ has a section \"$section\"} (HTML in $sout/Documentation/output)"
else
	mapfile -t found < <(has_names "$stext")
	mapfile -t atbase < <(has_names "$btext")
	missing=$(for n in $names; do
		if ! printf '%s\n' "${found[@]}" | grep -qx -- "$n"; then echo "$n"; fi
	done | paste -sd' ' -)
	bnote="none of them at base"
	[ ${#atbase[@]} = 0 ] || bnote="at base already: ${atbase[*]}"
	if [ -z "$missing" ]; then
		pass "docs: the ${where}${shown[*]} names ${names// /, } ($bnote)"
	else
		fail "docs: the ${where}${shown[*]} does not name: $missing (HTML: $sout/Documentation/output/${shown[0]})"
	fi
fi

[ "$SPB_FAILED" = 0 ] || { warn "$SPB_FAILED check(s) failed"; exit 1; }
log "all docs checks passed"
