#!/usr/bin/env bash
# testmod.sh - builds a test module of tests/kmod/ (stap_testmod.ko, stap_tpmod.ko: with DWARF) into a directory, once.
# Used by the DWARF and tracepoint tests: `testmod_build DIR` / `kmod_build NAME DIR` when sourced, or run as
# `tests/lib/testmod.sh DIR`. Prints the .ko's absolute path on stdout.
#
# KVER (default: scripts/guest-kver.sh) picks /lib/modules/KVER/build. The sources are copied to DIR
# (kbuild writes beside them) with a stamp of the sources, KVER and the compiler; a later call with
# the same stamp and the .ko present returns at once. Concurrent calls on one DIR (parallel test
# cases sharing a build, e.g. build/tests/testmod/KVER) are serialized with flock, so one of them builds.
# kbuild's output goes to DIR/build.log, shown on failure.

# kmod_build NAME DIR: builds tests/kmod/NAME (every file of it) into DIR as above; prints DIR/MODULE.ko
# (MODULE: the obj-m of its Kbuild). Returns non-zero (with the reason on stderr) if the build fails.
kmod_build() {
    local name=${1:?usage: kmod_build NAME DIR} dir=${2:?usage: kmod_build NAME DIR} top src kver stamp ko mod
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    src=$top/tests/kmod/$name
    kver=${KVER:-$("$top/scripts/guest-kver.sh")} || return 1
    mod=$(sed -n 's/^obj-m *:= *\(.*\)\.o$/\1/p' "$src/Kbuild")
    [[ -n $mod ]] || { echo "testmod: no obj-m in $src/Kbuild" >&2; return 1; }
    mkdir -p "$dir" || return 1
    dir=$(cd "$dir" && pwd)
    ko=$dir/$mod.ko
    stamp=$(cat "$src"/Kbuild "$src"/*.[ch] | sha256sum | cut -d' ' -f1)
    stamp+=" $kver $(gcc --version | head -n 1)"
    (
        flock 9
        if [[ -f $ko && -f $dir/.stamp && $(cat "$dir/.stamp") == "$stamp" ]]; then
            exit 0
        fi
        rm -f "$ko" "$dir/.stamp"
        cp "$src"/Kbuild "$src"/*.[ch] "$dir/"
        if ! make -C "/lib/modules/$kver/build" M="$dir" modules >"$dir/build.log" 2>&1 ||
                [[ ! -f $ko ]]; then
            echo "testmod: building $mod.ko for $kver in $dir failed:" >&2
            tail -n 30 "$dir/build.log" >&2
            exit 1
        fi
        echo "$stamp" >"$dir/.stamp"
    ) 9>"$dir/.lock" || return 1
    echo "$ko"
}

# testmod_build DIR: stap_testmod.ko (tests/kmod/testmod), see above.
testmod_build() {
    kmod_build testmod "${1:?usage: testmod_build DIR}"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    testmod_build "$@"
fi
