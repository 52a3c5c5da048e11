# SPDX-License-Identifier: GPL-2.0
# Common helpers for the schedutil performance-bias series scripts.
# Sourced, never executed.

# Where everything generated lives: kernel trees, build directories, the
# private apt state, ccache. Never inside the repository.
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME
: "${SPB_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/schedutil-perf-bias}"
export SPB_CACHE

SPB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SPB_ROOT

# The branch, in the cached kernel tree, that holds the series as commits.
: "${SPB_BRANCH:=schedutil-perf-bias}"
# Neutral identity used for commits the tooling makes itself (base import).
SPB_IMPORT_NAME="schedutil-perf-bias tooling"
SPB_IMPORT_EMAIL="tooling@schedutil-perf-bias.invalid"

SPB_JOBS=${SPB_JOBS:-$(nproc)}
# QEMU's TCG accelerator as every guest runs it: single-threaded, as QEMU
# 7.2's multi-threaded TCG runs stale int3 instructions after the kernel
# patches a static branch (see scripts/vm-run.sh); SPB_TCG_THREAD=multi
# to change.
SPB_TCG_ACCEL=tcg,thread=${SPB_TCG_THREAD:-single}
# An x86 CPU model on which acpi-cpufreq takes the I/O-port P-states of
# scripts/make-ssdt.sh (it refuses them on QEMU's default, AMD family 15).
SPB_ACPI_CPU=max,vendor=GenuineIntel,family=6,model=15

log() { printf '==> %s\n' "$*" >&2; }
note() { printf '    %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Run a command quietly, saving its output; on failure show the tail and die.
quiet() {
	local logf=$1; shift
	if ! "$@" >"$logf" 2>&1; then
		tail -n 40 "$logf" >&2
		die "'$*' failed; full log in $logf"
	fi
}

# Series names accepted by --series: the Debian linux-source package version
# and the suite that carries it.
series_suite() {
	case $1 in
	7.3) echo trixie-backports ;;
	7.2) echo sid ;;
	6.12) echo bookworm-security ;;
	*) return 1 ;;
	esac
}

# The Debian archive the system's apt configuration names, for the private
# apt configurations below: "main" (default) for the one that carries the
# distribution's suites, "security" for the security archive. Read through
# apt itself, so deb822 .sources files, a classic sources.list and .list
# files all count, and a local mirror or proxy is used as the system uses it.
debian_archive() {
	local kind=${1:-main} uri
	uri=$(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk -v kind="$kind" '
		kind == "security" && $2 ~ /^[a-z]+-security$/ { print $1; exit }
		kind == "main" && $2 ~ /^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldoldstable|oldstable|stable|testing|unstable)$/ { print $1; exit }')
	if [ -z "$uri" ]; then
		if [ "$kind" = security ]; then
			die "no Debian security archive in the system's apt configuration (a <codename>-security suite in /etc/apt/sources.list or /etc/apt/sources.list.d/): add your mirror's security archive and run 'apt-get update'"
		fi
		die "no Debian archive in the system's apt configuration (a Debian suite such as bookworm in /etc/apt/sources.list or /etc/apt/sources.list.d/): add your mirror and run 'apt-get update'"
	fi
	echo "${uri%/}"
}

# The archive that carries SUITE.
series_archive() {
	case $1 in
	*-security) debian_archive security ;;
	*) debian_archive main ;;
	esac
}

# Set up a private apt configuration in DIR for LINE (a sources.list line),
# optionally for a foreign architecture ARCH, and fill the array APT_OPTS
# with the options that use it. The system's apt is never touched.
apt_private() {
	local dir=$1 line=$2 arch=${3:-}
	mkdir -p "$dir"/{lists/partial,archives/partial,etc/sources.list.d,etc/preferences.d,debs}
	: >"$dir/status"
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] ||
		die "the Debian archive keyring is missing: apt-get install debian-archive-keyring"
	printf '%s\n' "$line" >"$dir/etc/sources.list"
	APT_OPTS=(-o "Dir::Etc::sourcelist=$dir/etc/sources.list"
		-o "Dir::Etc::sourceparts=$dir/etc/sources.list.d"
		-o "Dir::Etc::preferencesparts=$dir/etc/preferences.d"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::State::status=$dir/status"
		-o "Dir::Cache=$dir"
		-o "Dir::Cache::archives=$dir/archives"
		-o "APT::Get::List-Cleanup=0"
		-o "Debug::NoLocking=1")
	[ -z "$arch" ] || APT_OPTS+=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch")
}

# Directory of the patch series matching a kernel version (major.minor).
series_dir_for() {
	case $1 in
	6.12|7.2) echo "$SPB_ROOT/backports/$1" ;;
	*) echo "$SPB_ROOT" ;;
	esac
}

# Kernel version (major.minor) of a tree.
tree_version() {
	local mk=$1/Makefile v p
	[ -f "$mk" ] || die "$1 does not look like a kernel tree (no Makefile)"
	v=$(sed -n 's/^VERSION = //p' "$mk" | head -n1)
	p=$(sed -n 's/^PATCHLEVEL = //p' "$mk" | head -n1)
	[ -n "$v" ] && [ -n "$p" ] || die "$1/Makefile has no VERSION/PATCHLEVEL"
	echo "$v.$p"
}

# The base commit of a tree: the tag the fetch script put on the pristine
# import, or, for a KERNEL_SRC tree, SPB_BASE or HEAD.
tree_base() {
	local tree=$1 t
	if [ -n "${SPB_BASE:-}" ]; then
		git -C "$tree" rev-parse --verify -q "$SPB_BASE^{commit}" ||
			die "SPB_BASE=$SPB_BASE is not a commit in $tree"
		return
	fi
	t=$(git -C "$tree" tag -l 'debian/*' --sort=-creatordate | head -n1)
	if [ -n "$t" ]; then
		git -C "$tree" rev-parse "$t^{commit}"
	else
		git -C "$tree" rev-parse --verify HEAD ||
			die "$tree has no commits"
	fi
}

# Whether COMMIT of TREE has the series' tunables: its schedutil has the
# first knob's sysfs store. The patches before it are the machinery that
# must change no behaviour, tested as the base is.
has_tunables() {
	git -C "$1" grep -q iowait_boost_store "$2" -- kernel/sched/cpufreq_schedutil.c
}

# The number of KUnit cases (parameterized cases counted) the suite must
# report at COMMIT of TREE: kunit/expected-cases gives it for each patch
# that adds cases, by subject; the last of them in the series up to
# COMMIT counts.
kunit_expected() {
	local tree=$1 commit=$2 base subjects n subj best=""
	base=$(tree_base "$tree")
	subjects=$(git -C "$tree" log --format=%s "$base..$commit")
	while IFS=$'\t' read -r n subj; do
		case $n in ''|'#'*) continue ;; esac
		if printf '%s\n' "$subjects" | grep -Fxq -- "$subj"; then
			best=$n
		fi
	done <"$SPB_ROOT/kunit/expected-cases"
	[ -n "$best" ] ||
		die "no patch named in kunit/expected-cases is in $(git -C "$tree" log -1 --format='%h %s' "$commit"): add the patch that adds the suite there"
	echo "$best"
}

# Resolve the kernel tree to work on: KERNEL_SRC if set, else the fetched one.
resolve_tree() {
	local series=${1:-7.3}
	if [ -n "${KERNEL_SRC:-}" ]; then
		[ -d "$KERNEL_SRC" ] || die "KERNEL_SRC=$KERNEL_SRC is not a directory"
		git -C "$KERNEL_SRC" rev-parse --git-dir >/dev/null 2>&1 ||
			die "KERNEL_SRC=$KERNEL_SRC is not a git repository; run 'git init' and commit the pristine tree first"
		(cd "$KERNEL_SRC" && pwd)
		return
	fi
	"$SPB_ROOT/scripts/fetch-kernel.sh" --series "$series" --quiet
}

# Print usage from the script's header comment (lines starting with '#:').
usage_from() {
	sed -n 's/^#: \{0,1\}//p' "$1"
}

# The prefix of TREE's worktrees and logs in the cache: none for the
# mainline tree, whose files keep their short names; the tree's directory
# name and a dash for other trees (6.12, 7.2, KERNEL_SRC), so that they
# are kept apart from the mainline tree's.
tree_prefix() {
	if [ "$1" -ef "$SPB_CACHE/src/linux-7.3" ]; then
		echo ""
	else
		echo "$(basename "$1")-"
	fi
}

# A git worktree of TREE at COMMIT, kept in the cache under NAME and reused:
# only the files that differ are rewritten, so make rebuilds only what
# changed. Its build directory is _build inside it: kbuild then uses the
# relative srctree "..", and ccache hits across worktrees (base, series,
# each prefix). Prints the worktree's path.
worktree_for() {
	local tree=$1 name=$2 commit=$3 wt
	wt=$SPB_CACHE/wt/$(tree_prefix "$tree")$name
	if [ ! -e "$wt/.git" ]; then
		mkdir -p "$SPB_CACHE/wt"
		rm -rf "$wt"
		# -f: take the path back if a deleted worktree left it
		# registered, without pruning the tree's other worktrees
		# (a submitter's, with --onto).
		git -C "$tree" worktree add -q -f --detach "$wt" "$commit" >&2
	elif [ "$(git -C "$wt" rev-parse HEAD)" != "$commit" ] ||
	     [ -n "$(git -C "$wt" status --porcelain --untracked-files=no)" ]; then
		git -C "$wt" checkout -q --detach -f "$commit" >&2
	fi
	echo "$wt"
}

# make with ccache in an out-of-tree build directory.
kmake() {
	local src=$1 out=$2 logf=$3; shift 3
	local cross="" cc archargs=()
	case ${SPB_ARCH:-x86_64} in
	arm64)
		cross=aarch64-linux-gnu-
		archargs=(ARCH=arm64 CROSS_COMPILE=$cross) ;;
	# 32-bit x86 with the host's gcc (-m32; the kernel needs no 32-bit libc).
	i386) archargs=(ARCH=i386) ;;
	esac
	cc=${cross}gcc
	command -v ccache >/dev/null && cc="ccache $cc"
	export CCACHE_DIR=${CCACHE_DIR:-$SPB_CACHE/ccache}
	export CCACHE_BASEDIR=$SPB_CACHE
	export CCACHE_NOHASHDIR=1
	# Depend mode: a miss compiles once, from the dependencies the
	# compiler writes (-MMD), instead of running the preprocessor first
	# to hash its output. A cold guest kernel took 38% longer through
	# ccache than without it in the default mode and no longer in this
	# one (kernel/, 172 objects: 165 s, 116 s; 119 s with no ccache);
	# hits are as fast (9 s, 10 s).
	export CCACHE_DEPEND=1
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	export KBUILD_BUILD_USER=spb KBUILD_BUILD_HOST=spb
	# No Rust toolchain from the host's PATH: Kconfig records its version
	# (CONFIG_RUSTC_VERSION and the RUSTC_HAS_* options) in every
	# object's autoconf.h, so a rustup rustc on this machine made the
	# configuration, and so every ccache key, differ from a fresh Debian
	# 12's (the pristine root's guest kernel got no cache hit at all).
	# The kernels here build no Rust.
	quiet "$logf" make -C "$src" O="$out" "${archargs[@]}" CC="$cc" HOSTCC=gcc RUSTC=false "$@"
}

# The bootable image in build directory OUT for $SPB_ARCH.
kernel_image() {
	if [ "${SPB_ARCH:-x86_64}" = arm64 ]; then
		echo "$1/arch/arm64/boot/Image"
	else
		echo "$1/arch/x86/boot/bzImage"
	fi
}

# Count the leaf test cases in a kunit.py JSON file: prints "CASES FAILED"
# and the first failed cases' paths on stderr.
kunit_json_count() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cases, bad = 0, []
def walk(t, path):
    global cases
    subs = t.get("sub_groups") or []
    tcs = t.get("test_cases") or []
    for c in tcs:
        kids = c.get("sub_groups") or c.get("test_cases") or []
        if kids:
            walk(c, path + [c["name"]])
            continue
        cases += 1
        if c.get("status") != "PASS":
            bad.append("/".join(path + [c["name"]]) + ":" + str(c.get("status")))
    for s in subs:
        walk(s, path + [s["name"]])
for t in d.get("tests", [d]):
    walk(t, [t.get("name", "")])
print(cases, len(bad))
for b in bad[:20]:
    print(b, file=sys.stderr)
PY
}

# The guest command that prints the schedutil KUnit suite's results, which
# a guest kernel with the suite built in ran at boot, from debugfs (KUnit
# logs at KERN_INFO, which the console's loglevel hides), between markers
# that kunit_parse_console finds.
SPB_KUNIT_DUMP='K=/sys/kernel/debug/kunit/cpufreq_schedutil/results
if [ -r $K ]; then echo SPB-KUNIT-BEGIN; cat $K; echo SPB-KUNIT-END; fi'

# Parse the KUnit results in guest console LOG (SPB_KUNIT_DUMP's markers)
# with WT's kunit.py: JSON into JSON, kunit.py's report (one line per
# case, with skip reasons) into REPORT. Fails when the log has none.
kunit_parse_console() {
	local wt=$1 logf=$2 json=$3 report=$4
	rm -f "$json"
	sed -n '/^SPB-KUNIT-BEGIN$/,/^SPB-KUNIT-END$/p' "$logf" | sed '1d;$d' >"$logf.kunit"
	python3 "$wt/tools/testing/kunit/kunit.py" parse --json="$json" "$logf.kunit" >"$report" 2>&1 || true
	[ -s "$json" ]
}

# Judge the KUnit suite's results in guest console LOG (SPB_KUNIT_DUMP's
# markers) of WT, a worktree of TREE, as WHERE ("the x86_64 guest"): every
# case passed and none missing (kunit/expected-cases); kunit.py's JSON and
# report go to BASE.json and BASE.report.
kunit_in_guest() {
	local tree=$1 wt=$2 where=$3 logf=$4 base=$5 n failed expected
	expected=$(kunit_expected "$tree" "$(git -C "$wt" rev-parse HEAD)")
	if ! kunit_parse_console "$wt" "$logf" "$base.json" "$base.report"; then
		fail "kunit in $where: no results in $logf"
		return
	fi
	read -r n failed < <(kunit_json_count "$base.json")
	if [ "$failed" = 0 ] && [ "$n" -ge "$expected" ]; then
		pass "kunit in $where: $n cases passed"
	else
		fail "kunit in $where: $n cases ($expected expected), $failed not passed (log: $logf)"
	fi
}

# Build the test cpufreq driver (selftests/testdrv) with W=1 into DIR
# against the kernel tree WT built in OUT, for $SPB_ARCH; log in DIR/build.log.
build_testdrv() {
	local wt=$1 out=$2 dir=$3
	rm -rf "$dir" && mkdir -p "$dir"
	cp "$SPB_ROOT"/selftests/testdrv/{Makefile,cpufreq_testdrv.c,cpufreq_testdrv_trace.h,cpuidle_testdrv.c} "$dir/"
	kmake "$wt" "$out" "$dir/build.log" M="$dir" W=1 modules
}

# Build the cpufreq kselftests of the series branch in TREE for ARCH
# (statically linked, for a busybox initramfs) and install them into DIR;
# sources and build in WORK, log in WORK/selftests-ARCH.log. Always the
# branch's, also when the kernel under test is another commit.
build_selftests() {
	local tree=$1 arch=$2 dir=$3 work=$4 src=$4/selftests-src cross="" commit
	commit=$(git -C "$tree" rev-parse "$SPB_BRANCH")
	if [ "$(cat "$src/.commit" 2>/dev/null)" != "$commit" ]; then
		rm -rf "$src" && mkdir -p "$src"
		git -C "$tree" archive "$commit" tools scripts Makefile | tar -x -C "$src"
		echo "$commit" >"$src/.commit"
	fi
	[ "$arch" = arm64 ] && cross=aarch64-linux-gnu-
	rm -rf "$dir" "$work/selftests-build-$arch"
	quiet "$work/selftests-$arch.log" make -C "$src/tools/testing/selftests" \
		ARCH="$arch" CROSS_COMPILE="$cross" LDFLAGS=-static TARGETS=cpufreq \
		O="$work/selftests-build-$arch" INSTALL_PATH="$dir" install
}

# The =y options of fragment FRAG that OUT/.config lacks, for tree SRC.
# Options that only the series defines (the KUnit suite) are not missing
# from a base tree that lacks them.
# The =y options of fragment FRAG that OUT/.config lacks (those that only
# the series defines are not missing from a tree without them).
kbuild_config_missing() {
	local src=$1 out=$2 frag=$3 l sym
	grep -v '^#' "$frag" | grep '=y$' | while read -r l; do
		grep -qx "$l" "$out/.config" && continue
		sym=${l%%=*}
		# A fragment that includes another may turn its options off.
		grep -qx "# $sym is not set" "$frag" && continue
		if grep -qx "$sym" "$SPB_ROOT/configs/series-symbols" 2>/dev/null &&
		   ! grep -rqx "config ${sym#CONFIG_}" --include='Kconfig*' "$src/kernel" "$src/drivers/cpufreq"; then
			continue
		fi
		echo "$l"
	done
}

# Configure OUT from allnoconfig plus a fragment; reuse when unchanged.
kbuild_config() {
	local src=$1 out=$2 frag=$3 stamp missing inc
	# "# include: NAME.config" lines pull in another fragment first.
	mkdir -p "$out"
	: >"$out/.spb-fragment"
	for inc in $(sed -n 's/^# include: *\([^ ]*\)$/\1/p' "$frag"); do
		[ -f "$(dirname "$frag")/$inc" ] || die "$frag includes $inc, which does not exist"
		cat "$(dirname "$frag")/$inc" >>"$out/.spb-fragment"
	done
	cat "$frag" >>"$out/.spb-fragment"
	frag=$out/.spb-fragment
	stamp=$(cat "$frag" | sha1sum | cut -c1-12)
	if [ -f "$out/.config" ] && [ "$(cat "$out/.spb-config" 2>/dev/null)" = "$stamp" ]; then
		kmake "$src" "$out" "$out/config.log" olddefconfig
		# Building another commit here (check-series.sh builds each
		# prefix of the series) drops the options its Kconfig lacks.
		[ -n "$(kbuild_config_missing "$src" "$out" "$frag")" ] || return 0
	fi
	log "configuring $(basename "$out") from $(basename "$3")"
	kmake "$src" "$out" "$out/config.log" allnoconfig
	quiet "$out/config.log" "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag"
	kmake "$src" "$out" "$out/config.log" olddefconfig
	missing=$(kbuild_config_missing "$src" "$out" "$frag")
	[ -z "$missing" ] || die "config fragment options not set (missing dependencies?): $missing"
	echo "$stamp" >"$out/.spb-config"
}

# The patch files a series file lists, in order, as paths.
series_patches() {
	local sdir=$1 line p
	while IFS= read -r line || [ -n "$line" ]; do
		p=${line%%#*}
		p=$(echo "$p" | awk '{print $1}')
		[ -n "$p" ] || continue
		[ -f "$sdir/patches/$p" ] || die "$sdir/series lists $p, which is not in $sdir/patches/"
		echo "$sdir/patches/$p"
	done <"$sdir/series"
}

# Check results. Each check prints one PASS/FAIL line; when SPB_RESULTS
# names a file, the line is also appended there for scripts/test.sh to count.
SPB_FAILED=0
pass() {
	printf 'PASS  %s\n' "$*"
	[ -z "${SPB_RESULTS:-}" ] || echo "PASS $*" >>"$SPB_RESULTS"
}
fail() {
	printf 'FAIL  %s\n' "$*"
	[ -z "${SPB_RESULTS:-}" ] || echo "FAIL $*" >>"$SPB_RESULTS"
	SPB_FAILED=$((SPB_FAILED + 1))
}
# Run "$@" as one check named NAME: PASS if it exits 0. Output goes to a
# log that is shown when it fails.
check() {
	local name=$1 logf
	shift
	logf=$(mktemp "${TMPDIR:-/tmp}/spb-check.XXXXXX")
	if "$@" >"$logf" 2>&1; then
		pass "$name"
	else
		sed 's/^/      /' "$logf" | tail -n 60
		fail "$name"
	fi
	rm -f "$logf"
}

# Set tree, ver (its major.minor), base and sdir (the series directory for
# that version, unless sdir is already set). With "require", die unless that
# kernel has a series.
resolve_series() {
	tree=$(resolve_tree)
	ver=$(tree_version "$tree")
	base=$(tree_base "$tree")
	[ -n "${sdir:-}" ] || sdir=$(series_dir_for "$ver")
	if [ "${1:-}" = require ] && [ ! -f "$sdir/series" ]; then
		die "no series for Linux $ver in $sdir: this kernel is not supported yet (supported: 7.3, 7.2 and 6.12; see docs/backports.md)"
	fi
}
