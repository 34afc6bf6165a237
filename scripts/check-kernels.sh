#!/usr/bin/env bash
# check-kernels.sh - runs the test suite on every installed guest kernel: the default one fully, the others
# (make deps-kernels: 6.12, 6.12-rt, 6.1-rt) with the cases of tests/kernels.list. Used by `make check-kernels`.
# A kernel without its vmlinux DWARF (/usr/lib/debug/boot/vmlinux-KVER) fails with a message naming
# make deps-kernels. Prints a line per kernel (counts, wall time); exit 1 if any case failed.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# list_filters: the filters of tests/kernels.list (comments and blank lines left out)
list_filters() {
    grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$TOP/tests/kernels.list"
}

main() {
    local -a kernels filters summary=()
    local kver first=1 rc=0 t0 secs last log
    mapfile -t kernels < <("$TOP/scripts/guest-kver.sh" --all)
    (( ${#kernels[@]} )) || { echo "check-kernels: no usable kernel (make deps)" >&2; exit 1; }
    mapfile -t filters < <(list_filters)
    for kver in "${kernels[@]}"; do
        if [[ ! -s /usr/lib/debug/boot/vmlinux-$kver ]]; then
            summary+=("$kver: no /usr/lib/debug/boot/vmlinux-$kver (make deps-kernels)")
            rc=1; first=0
            continue
        fi
        log=$TOP/build/check-kernels-$kver.log
        mkdir -p "$TOP/build"
        t0=$SECONDS
        echo "check-kernels: $kver ($( ((first)) && echo 'whole suite' || echo 'tests/kernels.list'))"
        if (( first )); then
            GUEST_KVER=$kver "$TOP/tests/run" 2>&1 | tee "$log"
        else
            GUEST_KVER=$kver TESTS_ASAN=0 "$TOP/tests/run" "${filters[@]}" 2>&1 | tee "$log"
        fi
        (( PIPESTATUS[0] == 0 )) || rc=1
        secs=$((SECONDS - t0))
        last=$(tail -n 1 "$log")
        summary+=("$kver: $last in ${secs}s")
        first=0
    done
    echo "check-kernels: summary"
    printf '  %s\n' "${summary[@]}"
    exit "$rc"
}

main "$@"
