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

# The kernel log's lines so far (KMSG_SEEN, counted after the previous case): a case's dmesg is
# what follows them. One dmesg a case: under TCG each program started costs about 0.1 s.
KMSG_SEEN=0

# new_kmsg FILE: writes the kernel messages logged since the previous call to FILE.
new_kmsg() {
    local -a lines=()
    local all
    all=$(dmesg 2>/dev/null) && mapfile -t lines <<<"$all"
    if (( ${#lines[@]} > KMSG_SEEN )); then printf '%s\n' "${lines[@]:KMSG_SEEN}" >"$1"; else : >"$1"; fi
    KMSG_SEEN=${#lines[@]}
}

# trouble_in FILE: does FILE show kernel trouble? (awk, guest_crash_lines, only when a line matches)
trouble_in() {
    local line
    while IFS= read -r line; do
        if [[ $line =~ $GUEST_CRASH_RE ]]; then
            guest_crash_lines "$1" >/dev/null
            return
        fi
    done <"$1"
    return 1
}

# The results directory is a 9p mount without a cache: every write reaches the host as it is made,
# so rc, written last, tells the host the case is over (no sync needed).
run_case() {
    local dir=$1 name t rc
    name=${dir##*/}
    t=60
    [[ -r $dir/guest-timeout ]] && read -r t <"$dir/guest-timeout"
    console "@@CASE $name begin"
    if [[ $TIMEOUTS == off ]]; then
        (cd "$dir" && exec ./guest-run) </dev/null >"$dir/out" 2>"$dir/err"
    else
        (cd "$dir" && exec timeout -k 5 "$t" ./guest-run) </dev/null >"$dir/out" 2>"$dir/err"
    fi
    rc=$?
    new_kmsg "$dir/dmesg"
    echo "$rc" >"$dir/rc"
    console "@@CASE $name end rc=$rc"
    ! trouble_in "$dir/dmesg"
}

main() {
    local dir
    TIMEOUTS=${2:-on}
    new_kmsg /dev/null   # the boot's messages belong to no case
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
