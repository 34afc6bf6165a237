#!/usr/bin/env bash
# guest-app-trace.sh - runs inside the QEMU guest: fio's rounds with no module or under one app-trace module.
# Used by bench/app-trace.sh, whose generated guest-run scripts call: guest-app-trace.sh none | stap KO [PARAM=VALUE...]
#
# Environment (set by the guest-run script): JOB (the fio job file), ROUNDS, WORK (a directory in the
# guest's tmpfs /tmp: fio's data file, its json output and the trace file go there), PROFILE_JOB (a
# job run once more under perf after the rounds, module still loaded; empty: none).
# Leaves in the case directory (the cwd): round-N.json (fio's json output of round N), for a module
# trace.out (what stapio wrote with -o WORK/trace.out), stap.err, with PROFILE_JOB profile.json and
# profile.txt (perf's samples by program, file and symbol); prints "note ..." lines.
set -euo pipefail

note() { echo "note $*"; }

# fio_rounds: ROUNDS runs of the job, each starting without the data file, json kept in WORK meanwhile
# (the 9p case directory is not touched while fio runs)
fio_rounds() {
    local r
    for ((r = 1; r <= ROUNDS; r++)); do
        rm -f "$WORK/fio.data"
        fio --output-format=json --output="$WORK/round-$r.json" "$JOB" >/dev/null
    done
    rm -f "$WORK/fio.data"
    cp "$WORK"/round-*.json .
}

# profile: PROFILE_JOB once under `perf record -a` sampling every 20,000 guest instructions (cpu-clock
# under -icount: guest ns are instructions); the symbols of the module from a copy of /proc/kallsyms
# taken while it is loaded
profile() {
    [[ -n ${PROFILE_JOB:-} ]] || return 0
    command -v perf >/dev/null || { echo "profile: none (no perf)"; return 0; }
    rm -f "$WORK/fio.data"
    HOME=$WORK perf record -N -q -a -e cpu-clock -c 20000 -o "$WORK/perf.data" \
        fio --output-format=json --output="$WORK/profile.json" "$PROFILE_JOB" >/dev/null 2>perf.err
    rm -f "$WORK/fio.data"
    cat /proc/kallsyms >"$WORK/kallsyms"
    HOME=$WORK perf report -i "$WORK/perf.data" --kallsyms="$WORK/kallsyms" --stdio --no-children -n \
        --sort comm,dso,sym >profile.txt 2>>perf.err
    cp "$WORK/profile.json" .
    rm -f "$WORK/perf.data" "$WORK/kallsyms"
}

stapio_pid() {
    local p comm
    for p in /proc/[0-9]*; do
        read -r comm <"$p/comm" 2>/dev/null || continue
        [[ $comm == stapio ]] && { echo "${p#/proc/}"; return 0; }
    done
    return 1
}

# started: stapio -v has logged the module's "started" message (every probe is armed)
started() {
    local line
    [[ -f stap.err ]] || return 1
    while IFS= read -r line; do
        [[ $line == *'got "started"'* ]] && return 0
    done <stap.err
    return 1
}

# run_stap KO [PARAM=VALUE...]: staprun -o WORK/trace.out (stapio writes the trace into the guest's
# tmpfs, as app-trace-ctl's service writes TRACEDIR), fio's rounds once every probe is armed, SIGINT
# to stapio (the end probe writes the totals), the trace copied to the case directory.
run_stap() {
    local ko=$1 pid io rc=0
    shift
    set -m
    staprun -v -o "$WORK/trace.out" "$ko" "$@" >stap.out 2>stap.err &
    pid=$!
    set +m
    trap '[[ -n ${pid:-} ]] && { kill -INT "$(stapio_pid)" 2>/dev/null; wait "$pid"; }' EXIT
    until started; do
        kill -0 "$pid" 2>/dev/null || { note "staprun ended early: $(tr '\n' ' ' <stap.err)"; return 1; }
        sleep 0.1
    done
    fio_rounds
    profile
    io=$(stapio_pid) || { note "no stapio process"; io=$pid; }
    kill -INT "$io"
    wait "$pid" || rc=$?
    pid=
    (( rc == 0 )) || note "staprun exited with status $rc: $(tr '\n' ' ' <stap.err)"
    cp "$WORK/trace.out" trace.out
    echo "trace $(stat -c %s trace.out)"
}

main() {
    rm -rf "$WORK"
    mkdir -p "$WORK"
    case ${1:-} in
    none) fio_rounds; profile ;;
    stap) shift; run_stap "$@" ;;
    *)    echo "usage: guest-app-trace.sh none | stap KO [PARAM=VALUE...]" >&2; exit 2 ;;
    esac
    rm -rf "$WORK"
}

main "$@"
