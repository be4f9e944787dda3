#!/usr/bin/env bash
# Python 3.14 and 3.15 for the tests, where pyenv has none: Debian unstable's
# binary packages, unpacked (never installed) into a cache folder outside the
# checkout and made to run on an older Debian with unstable's own C library.
#
#   scripts/debian_python.sh 3.14 3.15      # prints each interpreter's path
#   scripts/debian_python.sh --refresh 3.14 # fetch again if unstable moved on
#
# The cache is $DEPYF_DEBIAN_PYTHONS, else ${XDG_CACHE_HOME:-~/.cache}/depyf/debian-python
# (depyf.verify.interpreters looks there too): <cache>/3.14/usr/bin/python3.14.
# A version already there and working is reused without the network. The
# archive is the one the machine's own apt sources name; unstable's current
# build of each version is taken. Exits non-zero, saying why, for any version
# it could not provide; the others are still printed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/_venv.sh"

refresh=0
versions=()
for arg in "$@"; do
    case "$arg" in
        --refresh) refresh=1 ;;
        3.*) versions+=("$arg") ;;
        *) echo "usage: $0 [--refresh] 3.X..." >&2; exit 2 ;;
    esac
done
[ ${#versions[@]} -gt 0 ] || { echo "usage: $0 [--refresh] 3.X..." >&2; exit 2; }

say() { echo "debian_python: $*" >&2; }

# Bumped whenever what this script puts in the cache changes, so that older
# caches are redone.
LAYOUT=5

cache=$(debian_python_root)
apt_dir="$cache/apt"

# The libraries the interpreter and its extension modules link against, from
# unstable, so that they match its C library; apt-cache adds any a newer
# build depends on.
BASE_LIBS="libc6 libgcc-s1 libexpat1 zlib1g libffi8 libbz2-1.0 liblzma5 libzstd1 libmpdec4
libssl3t64 libsqlite3-0 libuuid1 libncursesw6 libtinfo6 libreadline8t64 libcrypt1"

# The machine's Debian archive and suite: the first deb source naming "main"
# that is not a -security/-updates/-backports suite, in deb822 or one-line form.
system_source() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk '
            function flush() {
                if (types ~ /(^| )deb( |$)/ && comps ~ /(^| )main( |$)/ && uri != "") {
                    n = split(suites, s, " ")
                    for (i = 1; i <= n; i++)
                        if (s[i] !~ /-(security|updates|backports)$/) { print uri, s[i]; exit }
                }
                types = ""; uri = ""; suites = ""; comps = ""
            }
            /^[ \t]*$/ { flush(); next }
            /^#/ { next }
            tolower($1) == "types:" { $1 = ""; types = $0 }
            tolower($1) == "uris:" { uri = $2 }
            tolower($1) == "suites:" { $1 = ""; suites = $0 }
            tolower($1) == "components:" { $1 = ""; comps = $0 }
            END { flush() }
        ' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        awk '$1 == "deb" {
                 i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                 uri = $i; suite = $(i + 1)
                 if (suite !~ /-(security|updates|backports)$/ && $0 ~ / main( |$)/) { print uri, suite; exit }
             }' "$f"
    done
}

apt_opts() {
    # The machine's own sources and pins stay out: only sources.list is read.
    echo "-o Dir::Etc::sourcelist=$apt_dir/sources.list -o Dir::Etc::sourceparts=$apt_dir/empty"
    echo "-o Dir::Etc::preferences=$apt_dir/empty/none -o Dir::Etc::preferencesparts=$apt_dir/empty"
    echo "-o Dir::State::Lists=$apt_dir/lists -o Dir::Cache=$apt_dir/cache"
    # The _apt user cannot write into a cache under root's home.
    [ "$(id -u)" = 0 ] && echo "-o APT::Sandbox::User=root"
}

apt_ready=0
prepare_apt() {
    [ $apt_ready = 1 ] && return 0
    command -v apt-get >/dev/null && command -v dpkg >/dev/null ||
        { say "no apt-get/dpkg on this machine"; return 1; }
    local source
    source=$(system_source | head -n 1)
    [ -n "$source" ] || { say "no Debian archive in the machine's apt sources"; return 1; }
    set -- $source
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/empty" || return 1
    # unstable for the interpreters; the machine's own suite for patchelf,
    # which must run on the system's C library.
    printf 'deb %s unstable main\ndeb %s %s main\n' "$1" "$1" "$2" > "$apt_dir/sources.list"
    system_suite=$2
    say "apt-get update (unstable and $2)"
    apt-get $(apt_opts) -qq update >&2 || { say "apt-get update failed"; return 1; }
    apt_ready=1
}

# download DIR PKG... -> the .deb files of PKG... in DIR
download() {
    local dir="$1"; shift
    mkdir -p "$dir" && (cd "$dir" && apt-get $(apt_opts) -qq download "$@" >&2)
}

patchelf_bin() {
    if command -v patchelf >/dev/null; then command -v patchelf; return 0; fi
    local pe="$cache/patchelf/usr/bin/patchelf"
    if [ ! -x "$pe" ]; then
        prepare_apt || return 1
        local tmp="$cache/patchelf.tmp"
        rm -rf "$tmp" && download "$tmp/deb" "patchelf/$system_suite" || { say "cannot download patchelf"; return 1; }
        dpkg -x "$tmp"/deb/patchelf_*.deb "$tmp" && rm -rf "$cache/patchelf" && mv "$tmp" "$cache/patchelf" || return 1
    fi
    echo "$pe"
}

# works PYTHON V -> true if PYTHON is a working 3.V with the modules the tests need
works() {
    "$1" -c "
import sys, ssl, ctypes, sqlite3, zlib, bz2, lzma, decimal, venv
sys.exit(sys.version_info[:2] != tuple(map(int, '$2'.split('.'))))" >/dev/null 2>&1
}

fresh() { [ "$(cat "$1/.layout" 2>/dev/null)" = $LAYOUT ]; }

provide() {
    local v="$1" dest="$cache/$1"
    local exe="$dest/usr/bin/python$v"
    if [ $refresh = 0 ] && [ -f "$dest/.package-version" ] && fresh "$dest" && works "$exe" "$v"; then
        echo "$exe"; return 0
    fi
    prepare_apt || return 1
    local want
    want=$(apt-cache $(apt_opts) policy "python$v-minimal" 2>/dev/null | awk '$1 == "Candidate:" {print $2}')
    if [ -z "$want" ] || [ "$want" = "(none)" ]; then
        say "Debian unstable has no python$v-minimal"; return 1
    fi
    if [ -f "$dest/.package-version" ] && [ "$(cat "$dest/.package-version")" = "$want" ] &&
           fresh "$dest" && works "$exe" "$v"; then
        echo "$exe"; return 0
    fi
    local pe; pe=$(patchelf_bin) || return 1
    local pkgs="python$v-minimal libpython$v-minimal libpython$v-stdlib python$v-venv python3-pip-whl"
    # The standard library's own tests: the reader checks read their .pyc
    # files as they do pyenv's (unusual syntax lives there).
    local tests="libpython$v-testsuite"
    local extra
    extra=$(apt-cache $(apt_opts) depends --no-recommends --no-suggests --no-conflicts --no-breaks \
                --no-replaces --no-enhances $pkgs 2>/dev/null |
            awk '$1 == "Depends:" || $1 == "|Depends:" {print $2}' | grep -E '^lib' | grep -v "^libpython" | sort -u)
    local all=() p
    for p in $pkgs $tests $BASE_LIBS $extra; do all+=("$p/unstable"); done
    say "fetching Python $want from Debian unstable"
    local tmp="$dest.tmp"
    rm -rf "$tmp"
    download "$tmp/deb" $(printf '%s\n' "${all[@]}" | sort -u) || { say "download failed"; return 1; }
    local deb
    for deb in "$tmp"/deb/*.deb; do dpkg -x "$deb" "$tmp/tree" || return 1; done
    # The C headers: Inductor compiles its CPU kernels against Python.h, and
    # from 3.14 the list of every magic number (which tools/gen_opcode_tables.py
    # reads) is only in a header. The rest of the -dev package (static
    # libraries, python-config) is not needed.
    if download "$tmp/dev" "libpython$v-dev/unstable"; then
        dpkg-deb --fsys-tarfile "$tmp"/dev/*.deb | tar -x -C "$tmp/tree" ./usr/include 2>/dev/null ||
            say "libpython$v-dev has no usr/include"
        # Debian's pyconfig.h only includes <TRIPLET/python3.X/pyconfig.h>,
        # found on the system's include path, which this tree is not on: put
        # the real one in its place, so -I usr/include/python3.X is enough.
        local real
        real=$(ls "$tmp"/tree/usr/include/*-linux-gnu*/"python$v"/pyconfig.h 2>/dev/null | head -n 1)
        [ -n "$real" ] && cp "$real" "$tmp/tree/usr/include/python$v/pyconfig.h"
    else
        say "cannot download libpython$v-dev (Inductor's C++ kernels and the table generator need its headers)"
    fi
    # unstable's dynamic loader (ld-linux-x86-64.so.2 on amd64), whatever the machine
    local loader
    loader=$(ls "$tmp"/tree/usr/lib/*-linux-gnu*/ld-linux*.so.[0-9] 2>/dev/null | head -n 1)
    [ -n "$loader" ] || { say "no dynamic loader in unstable's libc6"; return 1; }
    local triplet; triplet=$(basename "$(dirname "$loader")")
    local lib="$dest/usr/lib/$triplet"
    # Paths point where the tree ends up, after the rename below.
    "$pe" --set-interpreter "$lib/$(basename "$loader")" --set-rpath "$lib" \
        "$tmp/tree/usr/bin/python$v" || return 1
    local so
    for so in "$tmp/tree/usr/lib/python$v/lib-dynload/"*.so; do "$pe" --set-rpath "$lib" "$so" || return 1; done
    # Absolute links (sitecustomize.py -> /etc/python3.X/...) point into the
    # system: point them into the tree.
    local link target
    while IFS= read -r link; do
        target=$(readlink "$link")
        [ -e "$tmp/tree$target" ] && ln -sfn "$dest$target" "$link"
    done < <(find "$tmp/tree" -type l -lname '/*')
    # ensurepip (so python -m venv) takes pip from the build's WHEEL_PKG_DIR,
    # the system's /usr/share/python-wheels: make it the tree's own.
    local data
    for data in "$tmp/tree/usr/lib/python$v"/_sysconfig{data_*.py,_vars_*.json}; do
        [ -f "$data" ] && [ ! -L "$data" ] &&
            sed -i "s|\([\"']\)/usr/share/python-wheels/|\1$dest/usr/share/python-wheels/|" "$data"
    done
    rm -rf "$dest" && mv "$tmp/tree" "$dest" && rm -rf "$tmp" || return 1
    if ! works "$exe" "$v"; then
        say "python$v $want was unpacked but does not run here"; "$exe" -c "import ssl, ctypes, sqlite3" >&2; return 1
    fi
    # Debian compiles at install time, so the packages hold no .pyc; compile
    # every optimisation level as CPython's own install does (and with its
    # exclusions: files that are meant not to compile). Some test data still
    # fails to compile, on purpose, hence no status check.
    say "compiling the standard library of $want"
    "$exe" -m compileall -q -j 2 -o 0 -o 1 -o 2 -x 'bad_coding|badsyntax|site-packages' \
        "$dest/usr/lib/python$v" >/dev/null 2>&1
    local venv="$cache/venv-check.tmp"
    rm -rf "$venv"
    if ! "$exe" -m venv "$venv" >&2 || ! "$venv/bin/python" -m pip --version >/dev/null; then
        say "python$v -m venv does not give a venv with pip"; rm -rf "$venv"; return 1
    fi
    rm -rf "$venv"
    # Last: a tree with these is complete (depyf's tests look for .package-version).
    echo $LAYOUT > "$dest/.layout"
    echo "$want" > "$dest/.package-version"
    echo "$exe"
}

mkdir -p "$cache" || { say "cannot create $cache"; exit 1; }
# One run at a time per cache: others wait instead of unpacking over it.
exec 9>"$cache/.lock"
command -v flock >/dev/null && flock 9
status=0
for v in "${versions[@]}"; do
    provide "$v" || { say "Python $v not available"; status=1; }
done
exit $status
