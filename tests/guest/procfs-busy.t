# procfs-busy: a procfs read or write whose probe is skipped (a global's lock held by another handler past MAXTRYLOCK) fails with EAGAIN and is counted, never lost quietly; app-trace-ctl set-apps tries such a write again until it goes through
# Used by tests/run (guest/procfs-busy); the runtime side is runtime/probes/procfs.c (stp_procfs_run), the retry examples/app-trace/app-trace-ctl (proc_write, proc_read).

timeout_s=120
# the module stands in for app-trace's (same name, an apps file), so that app-trace-ctl drives it
D=/proc/systemtap/app_trace
CTL=$TOP/examples/app-trace/app-trace-ctl
BUSY='Resource temporarily unavailable'

build() {
    # a hold spins on one vCPU while the writer runs on the other
    [[ ${GUEST_ICOUNT:-0} != 1 && ${GUEST_SMP:-2} -ge 2 ]] || { echo "needs 2 vCPUs (GUEST_SMP)"; exit 77; }
    # hold: its write spins with held's write lock, as the handler of a vCPU that the host
    # descheduled keeps it under TCG, until two more hits were skipped for lock contention (guru
    # mode: the runtime's count) or for $value ms at most; apps (read and write) and probe take
    # held's lock too.  Long handlers (MAXACTION, the overload guard); every skip tolerated
    cat >busy.stp <<'EOF'
global held, writes
function skipped_for_lock:long() %{ STAP_RETURN(atomic_read(&stp_skipped_lock)); %}
probe procfs("hold").write {
    held++
    until_skipped = skipped_for_lock() + 2
    end_ms = gettimeofday_ms() + strtol($value, 10)
    while (skipped_for_lock() < until_skipped && gettimeofday_ms() < end_ms) {}
}
probe procfs("apps").write { held++; writes++; printf("apps %d [%s]\n", writes, $value) }
probe procfs("apps").read { $value = sprintf("held %d writes %d\n", held, writes) }
probe procfs("probe").write { held++ }
probe end { printf("end writes %d\n", writes) }
EOF
    $STAP -g -DMAXACTION=10000000000 -DMAXSKIPPED=100000 -DSTP_NO_OVERLOAD -p4 -m app_trace busy.stp >p4.out
    [[ $(cat p4.out) == app_trace.ko ]]
}

# write_to FILE VALUE: VALUE in one write(2)
write_to() { printf '%s' "$2" >"$1"; }
# read_from FILE: one read of FILE, its value dropped
read_from() { cat "$1" >/dev/null; }
# hold: a write of hold (it lasts until two more calls were refused, 10 s at most) from vCPU 0
# (the test's shell keeps to vCPU 1: were both on one, the shell would wait the hold out)
hold() {
    taskset -pc 0 $BASHPID >/dev/null
    write_to $D/hold 10000
}
# try NAME CMD...: a line "NAME ok", or "NAME" and CMD's error (what follows its last ": ")
try() {
    local name=$1 err
    shift
    if err=$("$@" 2>&1); then echo "$name ok"; else echo "$name ${err##*: }"; fi
}

guest() {
    local pid io i hp holds rc=0 line saw_w=0 saw_r=0
    taskset -pc 1 $$ >/dev/null
    staprun app_trace.ko >run.out 2>run.err & pid=$!
    io=$(stapio_of $pid)
    for i in $(seq 300); do read_from $D/apps 2>/dev/null && break; nap 0.1; done
    # control: nothing holds the lock, the write and the read go through
    try control write_to $D/apps w0 >tries
    cat $D/apps >control.read
    # contended: while a hold spins, writes and reads of apps fail with EAGAIN (the hits counted
    # as skipped), and the script never sees those writes; the ones that went through it does.
    # Until both a write and a read were refused (the calls alternate, and a hold ends after two
    # refusals: one hold; 3 at most when none are), then one more write once the hold is over
    hold & hp=$!
    holds=1
    for ((i = 1; saw_w == 0 || saw_r == 0; i++)); do
        line=$(try "write $i" write_to $D/apps "w$i")
        [[ $line != *"$BUSY" ]] || saw_w=1
        echo "$line" >>tries
        line=$(try "read $i" read_from $D/apps)
        [[ $line != *"$BUSY" ]] || saw_r=1
        echo "$line" >>tries
        if ! kill -0 $hp 2>/dev/null; then
            wait $hp
            ((holds++ < 3)) || break
            hold & hp=$!
        fi
        nap 0.05
    done
    wait $hp
    try after write_to $D/apps after >>tries
    # app-trace-ctl: once a hold is on (writes of probe until one is refused), set-apps' write is
    # refused, which ends the hold; it tries again (for up to 5 s) and succeeds
    hold & hp=$!
    while kill -0 $hp 2>/dev/null && write_to $D/probe p 2>probe.err; do :; done
    "$CTL" set-apps "x y" >ctl.out 2>ctl.err || echo "set-apps failed $?" >>ctl.err
    "$CTL" apps >ctl.apps 2>>ctl.err || echo "apps failed $?" >>ctl.err
    wait $hp
    kill -INT "$io"
    wait $pid || rc=$?
    echo $rc >run.rc
    not loaded app_trace
}

check() {
    local refused skipped n v
    [[ $(cat run.rc) == 0 ]] || { cat run.err; return 1; }
    # every call either went through or was refused with EAGAIN; writes and reads were refused
    grep -vE "^(control|after|(write|read) [0-9]+) (ok|$BUSY)\$" tries && return 1
    grep -qx 'control ok' tries
    grep -qx 'after ok' tries
    grep -qE "^write [0-9]+ $BUSY\$" tries
    grep -qE "^read [0-9]+ $BUSY\$" tries
    [[ $(cat control.read) == "held 1 writes 1" ]]
    # the script saw exactly the writes that went through, in order, and set-apps' (with its newline)
    n=0
    {
        for v in w0 $(sed -n 's/^write \([0-9]*\) ok$/w\1/p' tries) after; do echo "apps $((++n)) [$v]"; done
        printf 'apps %d [x y\n]\n' $((++n))
        echo "end writes $n"
    } >want.out
    diff -u want.out run.out
    # app-trace-ctl: the hold was on when it began (probe refused), and it got through quietly
    grep -q "$BUSY" probe.err
    [[ ! -s ctl.err && ! -s ctl.out ]] || { cat ctl.out ctl.err; return 1; }
    grep -qxE "held [0-9]+ writes $n" ctl.apps
    # every refused call counted as a hit skipped for lock contention: the test's own, the probe
    # write, and set-apps' first try (the hold ended with it)
    refused=$(grep -c "$BUSY\$" tries)
    skipped=$(sed -n 's/^WARNING: Skipped probes: \([0-9]*\) (reentrancy 0, lock contention \1)$/\1/p' run.err)
    [[ -n $skipped ]] || { cat run.err; return 1; }
    (( skipped >= refused + 2 )) || { echo "skipped $skipped, refused $refused + probe + set-apps"; return 1; }
    grep -qx "WARNING: Number of errors: 0, skipped probes: $skipped" run.err
}
