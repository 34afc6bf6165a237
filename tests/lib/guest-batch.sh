#!/bin/bash
# guest-batch.sh - runs inside the QEMU guest (chroot into the host root): runs each prepared case in turn.
# Used by tests/lib/guest-init.sh (`bash guest-batch.sh BATCHFILE`), which tests/lib/guest.sh boots.
#
# Usage: guest-batch.sh BATCHFILE [on|off]; "off": no case timeouts here (the host enforces them).
# BATCHFILE lists one case directory per line. A case directory holds `guest-run` (executable,
# run with cwd = the case directory) and optionally `guest-timeout` (seconds, default 60).
# Results written into the case directory: out, err, rc (written last), dmesg (new kernel messages).
# Console markers: "@@CASE NAME begin", "@@CASE NAME end rc=N" (tests/lib/guest.sh splits on them).
# After a case whose kernel messages show a crash, the guest powers off so that the
# remaining cases run on a fresh boot.
set -uo pipefail

# guest_crash_lines (GUEST_CRASH_RE, the signs of kernel trouble) is shared with the host side
source "$(dirname "${BASH_SOURCE[0]}")/guest.sh"

console() { echo "$*" >/dev/console; }

kmsg_lines() { dmesg 2>/dev/null | wc -l; }

run_case() {
    local dir=$1 name t rc before
    name=$(basename "$dir")
    t=$(cat "$dir/guest-timeout" 2>/dev/null || echo 60)
    before=$(kmsg_lines)
    console "@@CASE $name begin"
    if [[ $TIMEOUTS == off ]]; then
        (cd "$dir" && exec ./guest-run) </dev/null >"$dir/out" 2>"$dir/err"
    else
        (cd "$dir" && exec timeout -k 5 "$t" ./guest-run) </dev/null >"$dir/out" 2>"$dir/err"
    fi
    rc=$?
    dmesg 2>/dev/null | tail -n "+$((before + 1))" >"$dir/dmesg"
    sync
    echo "$rc" >"$dir/rc"
    sync
    console "@@CASE $name end rc=$rc"
    ! guest_crash_lines "$dir/dmesg" >/dev/null
}

main() {
    local dir
    TIMEOUTS=${2:-on}
    while read -r dir; do
        [[ -n $dir ]] || continue
        if ! run_case "$dir"; then
            console "@@GUEST kernel trouble after $(basename "$dir"): rebooting for the rest"
            return 1
        fi
    done <"$1"
    sleep 1  # let delayed kernel trouble of the last case reach the console before poweroff
}

main "$@"
