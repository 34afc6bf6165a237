# lib.sh - shell helpers shared by the bench part scripts (bench/run, pass2.sh, startup.sh, transport.sh, uprobes.sh, app-trace.sh, scale.sh).
# Sourced by bench/run and its part scripts, which may set PART (their name in messages) first.

die() { echo "bench${PART:+ $PART}: $*" >&2; exit 1; }
say() { echo "bench${PART:+ $PART}: $*" >&2; }

# median: the median of the numbers on stdin, one per line ("-" when there are none).
median() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        print m }'
}

# bench_run_guest GUEST_DIR LIMIT CASE_DIR...: guest_batch (tests/lib/guest.sh, sourced by the caller)
# into GUEST_DIR under a real-time watchdog of LIMIT seconds: the guest's own timeouts count guest
# seconds, which under -icount sleep=off are no measure of how long a stuck case has been stuck.
# SIGTERM makes guest_boot kill qemu.
bench_run_guest() {
    local gdir=$1 limit=$2 pid rc=0 deadline
    shift 2
    deadline=$((SECONDS + limit))
    guest_batch "$gdir" "$@" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if (( SECONDS >= deadline )); then
            say "the guest part ran for over ${limit}s: stopping it"
            kill -TERM "$pid" 2>/dev/null || true
            break
        fi
        sleep 1
    done
    wait "$pid" || rc=$?
    return "$rc"
}
