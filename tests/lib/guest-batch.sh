#!/bin/bash
# guest-batch.sh - runs inside the QEMU guest (chroot into the host root): runs each prepared case in turn.
# Used by tests/lib/guest-init.sh (`bash guest-batch.sh BATCHFILE`), which tests/lib/guest.sh boots.
#
# Usage: guest-batch.sh QUEUEFILE [on|off]; "off": no case timeouts here (the host enforces them).
# QUEUEFILE lists one case directory per line and ends with a line "@@END"; the host may still be
# appending cases (tests/run streams them as their modules build): at the end of what is there so
# far, the batch waits for more ("@@GUEST waiting" on the console). A case directory holds
# `guest-run` (executable, run with cwd = the case directory) and optionally `guest-timeout`
# (seconds, default 60). Results written into the case directory: began (first), out, err, ms (the
# case's milliseconds), dmesg (new kernel messages), rc (written last). A case whose `began` exists
# is not run again (a boot after a crash reads the queue from the start).
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

# close_batch_fds: in a case's process, the batch's own descriptors closed (the queue, nap's FIFO): a case
# gets the descriptors a shell gives a program, its first open() being 3 (scripts print descriptor numbers)
close_batch_fds() {
    [[ -z ${QUEUE_FD:-} ]] || exec {QUEUE_FD}<&-
    [[ -z ${NAP_FD:-} ]] || exec {NAP_FD}<&-
    return 0
}

# The results directory is a 9p mount without a cache: every write reaches the host as it is made,
# so rc, written last, tells the host the case is over (no sync needed).
run_case() {
    local dir=$1 name t rc
    name=${dir##*/}
    t=60
    [[ -r $dir/guest-timeout ]] && read -r t <"$dir/guest-timeout"
    : >"$dir/began"
    console "@@CASE $name begin"
    local t0=${EPOCHREALTIME//[.,]/}
    if [[ $TIMEOUTS == off ]]; then
        (cd "$dir" && close_batch_fds && exec ./guest-run) </dev/null >"$dir/out" 2>"$dir/err"
    else
        (cd "$dir" && close_batch_fds && exec timeout -k 5 "$t" ./guest-run) </dev/null >"$dir/out" 2>"$dir/err"
    fi
    rc=$?
    local t1=${EPOCHREALTIME//[.,]/}
    echo $(( (t1 - t0) / 1000 )) >"$dir/ms"
    new_kmsg "$dir/dmesg"
    echo "$rc" >"$dir/rc"
    console "@@CASE $name end rc=$rc"
    ! trouble_in "$dir/dmesg"
}

# next_case: DIR = the queue's next line, waiting while the host has not written it yet; 1 at "@@END".
# A line is taken whole: a read that ends without its newline keeps the part for the next try.
next_case() {
    local part= line
    while :; do
        if IFS= read -r line <&"$QUEUE_FD"; then
            DIR=$part$line
            part=
            [[ $DIR == @@END ]] && return 1
            [[ -n $DIR ]] && return 0
            continue
        fi
        part+=$line
        if [[ -z $WAITING ]]; then
            console "@@GUEST waiting"
            WAITING=1
        fi
        nap
    done
}

# nap: half a second without starting a program (under TCG each program started costs about 50 ms of the
# host's CPU, which the host's module builds need meanwhile): a read that times out on a FIFO nobody writes
nap() {
    if [[ -z ${NAP_FD:-} ]]; then
        mkfifo /tmp/.guest-batch-nap 2>/dev/null
        exec {NAP_FD}<>/tmp/.guest-batch-nap || { sleep 0.5; return; }
    fi
    read -r -t 0.5 -u "$NAP_FD" _ || true
}

main() {
    local DIR WAITING=
    TIMEOUTS=${2:-on}
    # /dev/fuse for a BPF run's procfs files (stapio/bpfprocfs.c): a distribution's static device node (kmod
    # static-nodes) loads the module at the first open; this initramfs makes none
    modprobe fuse 2>/dev/null || true
    new_kmsg /dev/null   # the boot's messages belong to no case
    exec {QUEUE_FD}<"$1"
    while next_case; do
        WAITING=
        [[ -e $DIR/began ]] && continue   # run in an earlier boot
        if ! run_case "$DIR"; then
            console "@@GUEST kernel trouble after $(basename "$DIR"): rebooting for the rest"
            return 1
        fi
    done
    sleep 1  # let delayed kernel trouble of the last case reach the console before poweroff
}

main "$@"
