# stap-signals: stap itself in the guest (passes 1-4 hit the module cache the host filled), ended by signals and -c
# Used by tests/run (issue 6, 33): SIGTERM/SIGHUP/SIGINT to stap are passed on, Ctrl-C (SIGINT to the group), -c CMD, -x PID.

timeout_s=300

ENDLESS='global ticks
probe timer.ms(50) { ticks++ }
probe end { printf("end ran, ticks>0: %d\n", ticks > 0) }'
TARGET='probe begin { printf("target %d\n", target()) }
probe end { println("end ran") }'

build() {
    # fills $SYSTEMTAP_DIR/cache: the same script in the guest is a cache hit, no gcc there
    $STAP -p4 -e "$ENDLESS" >/dev/null
    $STAP -p4 -e "$TARGET" >/dev/null
}

# started: waits until a stap module is loaded and its stapio runs.
started() {
    local i
    for i in $(seq 300); do
        file_has /proc/modules '^stap_' && running stapio && { sleep 1; return 0; }
        nap 0.1
    done
    return 1
}

# ended NAME SIG HOW: stap -e ENDLESS, ended by SIG sent to stap (HOW=pid) or to its process group.
ended() {
    local name=$1 sig=$2 how=$3 pid rc=0
    setsid stap -v -e "$ENDLESS" >"$name.out" 2>"$name.err" &
    pid=$!
    started
    if [[ $how == group ]]; then kill -"$sig" -- -"$pid"; else kill -"$sig" "$pid"; fi
    wait $pid || rc=$?
    echo $rc >"$name.rc"
    not grep -q '^stap_' /proc/modules
}

guest() {
    export TMPDIR=/tmp
    ended term TERM pid
    ended hup HUP pid
    ended int INT group
    # kill -INT of stap's pid alone (SIGINT ignored in this background job until stap's handler)
    ended intpid INT pid
    rc=0; stap -c 'echo $$ >c.pid; exec sleep 1' -e "$TARGET" >c.out 2>c.err || rc=$?
    echo $rc >c.rc
    sleep 30 & victim=$!
    echo $victim >x.pid
    setsid stap -x $victim -e "$TARGET" >x.out 2>x.err & pid=$!
    started
    kill -TERM $pid
    rc=0; wait $pid || rc=$?
    echo $rc >x.rc
    kill $victim
}

check() {
    local run
    for run in term hup int intpid; do
        [[ $(cat $run.rc) == 0 ]] || { echo "$run: rc $(cat $run.rc)"; cat $run.err; return 1; }
        [[ $(cat $run.out) == "end ran, ticks>0: 1" ]]
        grep -q '^Pass 4: using cached ' $run.err
    done
    [[ $(cat c.rc) == 0 ]]
    diff c.out <(printf 'target %s\nend ran\n' "$(cat c.pid)")
    [[ $(cat x.rc) == 0 ]]
    diff x.out <(printf 'target %s\nend ran\n' "$(cat x.pid)")
}
