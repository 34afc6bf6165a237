#!/usr/bin/env bash
# testmod.sh - builds tests/kmod/testmod (stap_testmod.ko, with DWARF) into a directory, once: idempotent.
# Used by the DWARF probe tests (tests/guest/testmod.t...): `testmod_build DIR` when sourced, or run as
# `tests/lib/testmod.sh DIR`. Prints DIR/stap_testmod.ko (absolute) on stdout.
#
# KVER (default: scripts/guest-kver.sh) picks /lib/modules/KVER/build. The sources are copied to DIR
# (kbuild writes beside them) with a stamp of the sources, KVER and the compiler; a later call with
# the same stamp and the .ko present returns at once. Concurrent calls on one DIR (parallel test
# cases sharing a build, e.g. build/tests/testmod) are serialized with flock, so one of them builds.
# kbuild's output goes to DIR/build.log, shown on failure.

# testmod_build DIR: see above; returns non-zero (with the reason on stderr) if the build fails.
testmod_build() {
    local dir=${1:?usage: testmod_build DIR} top src kver stamp ko
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    src=$top/tests/kmod/testmod
    kver=${KVER:-$("$top/scripts/guest-kver.sh")} || return 1
    mkdir -p "$dir" || return 1
    dir=$(cd "$dir" && pwd)
    ko=$dir/stap_testmod.ko
    stamp=$(cat "$src/Kbuild" "$src/stap_testmod.c" | sha256sum | cut -d' ' -f1)
    stamp+=" $kver $(gcc --version | head -n 1)"
    (
        flock 9
        if [[ -f $ko && -f $dir/.stamp && $(cat "$dir/.stamp") == "$stamp" ]]; then
            exit 0
        fi
        rm -f "$ko" "$dir/.stamp"
        cp "$src/Kbuild" "$src/stap_testmod.c" "$dir/"
        if ! make -C "/lib/modules/$kver/build" M="$dir" modules >"$dir/build.log" 2>&1 ||
                [[ ! -f $ko ]]; then
            echo "testmod: building stap_testmod.ko for $kver in $dir failed:" >&2
            tail -n 30 "$dir/build.log" >&2
            exit 1
        fi
        echo "$stamp" >"$dir/.stamp"
    ) 9>"$dir/.lock" || return 1
    echo "$ko"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    testmod_build "$@"
fi
