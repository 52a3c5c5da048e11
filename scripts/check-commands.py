#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Usage: scripts/check-commands.py --kselftest-tree DIR [--verbose]

Static check that every external command the project can run is installed
by the project itself. Each shell file of scripts/, selftests/ and .ci/ is
parsed with shfmt (no regular expressions over shell text), and so are
the series' kselftests and the kselftest helpers in DIR, a kernel tree
with the series (at least its tools/, scripts/ and Makefile), and the
recipes that the cpufreq kselftest install target runs there: it is run
into a temporary directory the way scripts/lib.sh runs it, with make's
SHELL recording each recipe. For every command word that is a literal
name (not a path, a variable, a builtin or a function the project or the
kselftests define), including the names that wrappers run (env, exec,
timeout, xargs, and the project's quiet, check and stage; 'command -v
NAME' only probes NAME, with a fallback, and does not count):

  host files  the command must be found in a fresh Debian's PATH
              (/usr/sbin:/usr/bin:/sbin:/bin) here, and 'dpkg -S' must name
              a package that scripts/install-deps.sh lists, a direct
              dependency of one (apt installs it with it), or one of
              Debian's essential packages;
  guest files (selftests/*.sh, selftests/bench/*.sh, and DIR's
              schedutil_*.sh, kselftest helpers and run_kselftest.sh: they
              run in the busybox initramfs) the command must be a busybox
              applet or a program the harness puts in the payload.

Python files of scripts/ are read for the commands they start (os.system,
subprocess with a literal command). One PASS line, or a FAIL line per
offending command naming the file and line; exit status 1 on any failure.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BUILTINS = set("""
. : [ [[ alias bg bind break builtin caller cd command compgen complete
compopt continue declare dirs disown echo enable eval exec exit export false
fc fg getopts hash help history jobs kill let local logout mapfile popd
printf pushd pwd read readarray readonly return set shift shopt source
suspend test times trap true type typeset ulimit umask unalias unset wait
""".split())

# Wrappers: how many leading arguments (after options) to pass over
# before the command they run. Options are arguments starting with '-'.
WRAPPERS = {"env": 0, "exec": 0, "nice": 0, "nohup": 0, "time": 0,
            "timeout": 1, "xargs": 0, "setsid": 0, "chrt": 1, "taskset": 1,
            "quiet": 1, "check": 1, "stage": 1}

SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"

# Files run in the guest's busybox initramfs, and what the harness puts
# in its payload for them to run by name.
GUEST_GLOBS = ["selftests/*.sh", "selftests/bench/*.sh"]
PAYLOAD_PROGRAMS = {"spb_bench"}


def shell_files(guest_tree):
    files = sorted(set(glob.glob(os.path.join(ROOT, "scripts", "*.sh")) +
                       glob.glob(os.path.join(ROOT, "selftests", "**", "*.sh"),
                                 recursive=True) +
                       [os.path.join(ROOT, ".ci", "run")]))
    guest = set()
    for g in GUEST_GLOBS:
        guest.update(glob.glob(os.path.join(ROOT, g)))
    if guest_tree:
        ks = os.path.join(guest_tree, "tools", "testing", "selftests")
        extra = (glob.glob(os.path.join(ks, "cpufreq", "schedutil_*.sh")) +
                 glob.glob(os.path.join(ks, "kselftest", "*.sh")) +
                 [os.path.join(ks, "run_kselftest.sh")])
        if not glob.glob(os.path.join(ks, "cpufreq", "schedutil_*.sh")):
            sys.exit("ERROR: %s has no schedutil kselftests (is the series applied?)" % guest_tree)
        files += sorted(extra)
        guest.update(extra)
    return [(f, f in guest) for f in files if os.path.isfile(f)]


def make_recipes(tree):
    """The shell commands that the cpufreq kselftests' install target
    runs in TREE, as make hands them to its shell."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="spb-cmds.") as tmp:
        rec = os.path.join(tmp, "recipes")
        shell = os.path.join(tmp, "sh")
        with open(shell, "w") as f:
            f.write('#!/bin/sh\n'
                    '# make runs: SHELL -c RECIPE; record RECIPE, then run it.\n'
                    'printf \'%%s\\n\' "$2" >>%s\n'
                    'exec /bin/sh "$@"\n' % rec)
        os.chmod(shell, 0o755)
        r = subprocess.run(["make", "-C", os.path.join(tree, "tools", "testing", "selftests"),
                            "SHELL=" + shell, "TARGETS=cpufreq", "LDFLAGS=-static",
                            "O=" + os.path.join(tmp, "build"),
                            "INSTALL_PATH=" + os.path.join(tmp, "install"), "install"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("ERROR: the kselftest install target failed in %s:\n%s" % (tree, r.stderr[-2000:]))
        return open(rec).read()


def parse(text, name):
    r = subprocess.run(["shfmt", "--to-json"], input=text, capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit("ERROR: shfmt cannot parse %s: %s" % (name, r.stderr.strip()))
    return json.loads(r.stdout)


def word_value(w):
    """The word's text if it is a literal (quoting allowed), else None."""
    out = []
    for p in w.get("Parts", []):
        t = p.get("Type")
        if t in ("Lit", "SglQuoted"):
            out.append(p.get("Value", ""))
        elif t == "DblQuoted":
            for q in p.get("Parts", []):
                if q.get("Type") != "Lit":
                    return None
                out.append(q.get("Value", ""))
        else:
            return None
    return "".join(out)


def walk(node, calls, funcs):
    if isinstance(node, dict):
        t = node.get("Type")
        if t == "FuncDecl":
            funcs.add(node["Name"]["Value"])
        if t == "CallExpr" and node.get("Args"):
            calls.append(node)
        for v in node.values():
            walk(v, calls, funcs)
    elif isinstance(node, list):
        for v in node:
            walk(v, calls, funcs)


def commands_of(call):
    """The command names a call runs: its first word, and what wrappers
    and 'command -v' run or probe. Yields (name or None, line)."""
    args = call["Args"]
    line = call["Pos"]["Line"]
    i = 0
    while i < len(args):
        name = word_value(args[i])
        yield name, line
        if name is None:
            return
        if name == "command":
            # 'command -v NAME' only asks whether NAME exists (the
            # caller has a fallback); 'command NAME' runs it.
            if i + 1 < len(args) and (word_value(args[i + 1]) or "").startswith("-"):
                return
            i += 1
            continue
        if name not in WRAPPERS:
            return
        skip = WRAPPERS[name]
        i += 1
        while i < len(args):
            v = word_value(args[i])
            if v is None:
                break
            if v.startswith("-") or (name == "env" and "=" in v):
                i += 1
                continue
            if skip:
                skip -= 1
                i += 1
                continue
            break


def python_commands(path):
    """Commands a Python file starts with a literal command string."""
    text = open(path).read()
    for m in re.finditer(r'(?:os\.system|subprocess\.\w+)\(\s*(\[\s*)?["\']([\w.+-]+)', text):
        yield m.group(2), text.count("\n", 0, m.start()) + 1


def install_deps_packages():
    out = subprocess.run([os.path.join(ROOT, "scripts", "install-deps.sh"), "--list"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def direct_dependencies(pkgs):
    """What the listed packages depend on directly (Depends, Pre-Depends):
    apt installs those with them, wherever they are installed."""
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Depends}, ${Pre-Depends}\n"] + sorted(pkgs),
                         capture_output=True, text=True).stdout
    deps = set()
    for rel in re.split(r"[,|]", out):
        name = rel.strip().split(" ")[0].split(":")[0]
        if name:
            deps.add(name)
    return deps


def essential_packages():
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Essential}\n"],
                         capture_output=True, text=True, check=True).stdout
    return {l.split()[0] for l in out.splitlines() if l.endswith(" yes")}


def candidates(path):
    """PATH, its target, and their /usr-merged twins, in that order."""
    cands = [path, os.path.realpath(path)]
    for p in list(cands):
        cands.append(p[4:] if p.startswith("/usr/") else "/usr" + p)
    return cands


def owners(paths):
    """The package that owns each of PATHS (or a candidate of it), or None;
    one dpkg -S for all of them."""
    allc = sorted({c for p in paths for c in candidates(p)})
    r = subprocess.run(["dpkg", "-S"] + allc, capture_output=True, text=True)
    found = {}
    for l in r.stdout.splitlines():
        if l.startswith("diversion by") or ": " not in l:
            continue
        pkgs, f = l.split(": ", 1)
        found.setdefault(f.strip(), pkgs.split(",")[0].split(":")[0].strip())
    return {p: next((found[c] for c in candidates(p) if c in found), None) for p in paths}


def busybox_applets():
    bb = shutil.which("busybox")
    if not bb:
        return None
    out = subprocess.run([bb, "--list"], capture_output=True, text=True).stdout
    return set(out.split())


def main():
    verbose = "--verbose" in sys.argv
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        return 0
    guest_tree = None
    argv = sys.argv[1:]
    while argv:
        a = argv.pop(0)
        if a == "--kselftest-tree":
            if not argv:
                sys.exit("ERROR: --kselftest-tree needs a directory")
            guest_tree = argv.pop(0)
        elif a != "--verbose":
            sys.exit("ERROR: unknown argument '%s' (see --help)" % a)
    if not guest_tree:
        sys.exit("ERROR: --kselftest-tree DIR is needed: a kernel tree with the series "
                 "(scripts/test.sh passes one; or 'git archive' the series branch's "
                 "tools scripts Makefile into a directory)")
    if not shutil.which("shfmt"):
        sys.exit("ERROR: shfmt not found: run scripts/install-deps.sh")

    uses = {}       # (name, guest) -> [where]
    funcs = set()
    parsed = []
    for path, guest in shell_files(guest_tree):
        tree = parse(open(path).read(), path)
        calls = []
        walk(tree, calls, funcs)
        rel = os.path.relpath(path, guest_tree) if guest_tree and not path.startswith(ROOT + "/") else os.path.relpath(path, ROOT)
        parsed.append((rel, guest, calls))
    if guest_tree:
        tree = parse(make_recipes(guest_tree), "the kselftest install recipes")
        calls = []
        walk(tree, calls, set())
        parsed.append(("the cpufreq kselftest install target", False, calls))
    for rel, guest, calls in parsed:
        for call in calls:
            for name, line in commands_of(call):
                if not name or "/" in name or name in BUILTINS or name in funcs:
                    continue
                if "=" in name or name.startswith(("-", "$")):
                    continue
                uses.setdefault((name, guest), []).append("%s:%d" % (rel, line))
    for path in glob.glob(os.path.join(ROOT, "scripts", "*.py")):
        for name, line in python_commands(path):
            uses.setdefault((name, False), []).append(
                "%s:%d" % (os.path.relpath(path, ROOT), line))

    listed = install_deps_packages()
    deps = direct_dependencies(listed)
    essential = essential_packages()
    applets = busybox_applets()
    failed = 0
    hosts = guests = 0
    # A fresh Debian's PATH: a command found only in /usr/local or a
    # user's directory (pyenv, cargo) is not one that a package installs.
    paths = {name: shutil.which(name, path=SYSTEM_PATH)
             for (name, guest) in uses if not guest}
    owner = owners([p for p in paths.values() if p])
    for (name, guest), where in sorted(uses.items()):
        at = ", ".join(where[:3]) + (" and %d more" % (len(where) - 3) if len(where) > 3 else "")
        if guest:
            guests += 1
            if name in PAYLOAD_PROGRAMS:
                continue
            if applets is None:
                print("FAIL  command check: no busybox here to list the guest's applets (run scripts/install-deps.sh)")
                failed += 1
                break
            if name not in applets:
                print("FAIL  command check: '%s' (%s) runs in the guest, and busybox has no such applet" % (name, at))
                failed += 1
            continue
        hosts += 1
        path = paths[name]
        if not path:
            print("FAIL  command check: '%s' (%s) is not installed here, so no package that scripts/install-deps.sh installs provides it: add its package to the list" % (name, at))
            failed += 1
            continue
        pkg = owner[path]
        if pkg is None:
            print("FAIL  command check: '%s' (%s) is %s, which no Debian package owns: install it from a package that scripts/install-deps.sh lists" % (name, at, path))
            failed += 1
        elif pkg not in listed and pkg not in essential and pkg not in deps:
            print("FAIL  command check: '%s' (%s) comes from package %s, which is not in scripts/install-deps.sh's list, nor a direct dependency of a package there, nor essential: add it to the list" % (name, at, pkg))
            failed += 1
        elif verbose:
            how = "" if pkg in listed else " (essential)" if pkg in essential else " (a dependency of a listed package)"
            print("      %s: %s%s" % (name, pkg, how))
    results = os.environ.get("SPB_RESULTS")
    if failed == 0:
        line = ("command check: %d host commands come from the %d packages install-deps.sh installs or from essential ones, %d guest commands are busybox applets or payload programs"
                % (hosts, len(listed), guests))
        print("PASS  " + line)
        if results:
            with open(results, "a") as f:
                f.write("PASS %s\n" % line)
        return 0
    if results:
        with open(results, "a") as f:
            f.write("FAIL command check: %d command(s) not provided\n" % failed)
    return 1


if __name__ == "__main__":
    sys.exit(main())
