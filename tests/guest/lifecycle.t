# lifecycle: how stap-built modules deliver output and end: a 10 s flood on 2 CPUs, -c/-x targets, rmmod, signals
# Used by tests/run (issue 6). Modules are built on the host with stap -p4, run in the guest with staprun.

timeout_s=300

build() {
    # one numbered record per ksys_read hit; the end probe says how many were produced
    # (both CPUs hammer one global: lock-contention skips are expected, and are no records)
    $STAP -p4 -m lc_flood -DMAXSKIPPED=1000000000 -DSTP_NO_OVERLOAD -e '
global n
probe kprobe.function("ksys_read") { n++; printf("rec %d cpu %d\n", n, cpu()) }
probe timer.s(10) { exit() }
probe end { printf("produced %d\n", n) }' >/dev/null
    # target(): the -c command (its reads are counted) or the -x process
    $STAP -p4 -m lc_target -e '
global reads
probe begin { printf("target %d\n", target()) }
probe kprobe.function("ksys_read") { if (pid() == target()) reads++ }
probe end { printf("target reads>0: %d\n", reads > 0) }' >/dev/null
    # an endless run whose end probe must run exactly once however it is ended
    $STAP -p4 -m lc_endless -e '
global ticks
probe timer.ms(50) { ticks++ }
probe end { printf("end ran, ticks>0: %d\n", ticks > 0) }' >/dev/null
}

# asleep PID: waits (up to 20 s) until PID sits in nanosleep or clock_nanosleep (x86_64 syscalls 35, 230).
asleep() {
    local nr _ i
    for ((i = 0; i < 200; i++)); do
        read -r nr _ <"/proc/$1/syscall" || return 1
        [[ $nr == 35 || $nr == 230 ]] && return 0
        nap 0.1
    done
    echo "process $1 never went to sleep" >&2
    return 1
}

# ended NAME HOW: an endless run ended by HOW (a signal to stapio or staprun, or rmmod).
ended() {
    local name=$1 how=$2 pid io rc=0
    staprun lc_endless.ko >"$name.out" 2>"$name.err" &
    pid=$!
    io=$(stapio_of $pid)
    sleep 1
    case $how in
        rmmod) rmmod lc_endless ;;
        stapio-*) kill -"${how#stapio-}" "$io" ;;
        staprun-*) kill -"${how#staprun-}" "$pid" ;;
    esac
    wait $pid || rc=$?
    echo $rc >"$name.rc"
    not loaded lc_endless
}

guest() {
    # the flood: dd bs=1 on each CPU for the whole 10 s run
    (taskset -c 0 dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null & \
     taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null & \
     wait) & load=$!
    rc=0; staprun -o flood.out lc_flood.ko >flood.stdout 2>flood.err || rc=$?
    echo $rc >flood.rc
    pkill -x dd || true
    wait $load || true
    not loaded lc_flood

    # -c: target() is the command's pid, its reads are seen, the run ends when it exits
    rc=0
    staprun -c 'echo $$ >c.pid; exec dd if=/etc/passwd of=/dev/null bs=1 2>/dev/null' \
        lc_target.ko >c.out 2>c.err || rc=$?
    echo $rc >c.rc
    # -x: target() is an existing process
    sleep 30 & victim=$!
    echo $victim >x.pid
    # its start-up reads (the dynamic loader's) must be over before the probes are armed
    asleep $victim
    staprun -x $victim lc_target.ko >x.out 2>x.err & run=$!
    stapio_of $run >/dev/null
    sleep 1
    kill $victim
    kill -INT $(pgrep -P $run -x stapio)
    rc=0; wait $run || rc=$?
    echo $rc >x.rc
    not loaded lc_target

    ended int stapio-INT
    ended term stapio-TERM
    ended hup stapio-HUP
    ended sterm staprun-TERM
    ended rmmod rmmod
    ended kill stapio-KILL
}

check() {
    # flood: every line whole, no number twice, printed + lost == produced
    [[ $(cat flood.rc) == 0 ]] || { cat flood.err; return 1; }
    local produced printed lost
    produced=$(sed -n 's/^produced \([0-9]*\)$/\1/p' flood.out)
    (( produced > 1000 ))
    [[ $(tail -n 1 flood.out) == "produced $produced" ]]
    ! grep -Evx 'rec [0-9]+ cpu [01]|produced [0-9]+' flood.out
    printed=$(grep -c '^rec ' flood.out)
    (( $(grep '^rec ' flood.out | cut -d' ' -f2 | sort -u | wc -l) == printed ))
    lost=$(sed -n 's/^WARNING: \([0-9]*\) records ([0-9]* bytes) lost$/\1/p' flood.err)
    (( printed + ${lost:-0} == produced ))
    # both CPUs produced records
    grep -q ' cpu 0$' flood.out
    grep -q ' cpu 1$' flood.out
    echo "flood: produced $produced printed $printed lost ${lost:-0}" >&2

    [[ $(cat c.rc) == 0 ]]
    diff c.out <(printf 'target %s\ntarget reads>0: 1\n' "$(cat c.pid)")
    [[ $(cat x.rc) == 0 ]]
    diff x.out <(printf 'target %s\ntarget reads>0: 0\n' "$(cat x.pid)")

    local run
    for run in int term hup sterm rmmod; do
        [[ $(cat $run.rc) == 0 ]] || { echo "$run: rc $(cat $run.rc)"; cat $run.err; return 1; }
        [[ $(cat $run.out) == "end ran, ticks>0: 1" ]]
    done
    # SIGKILL: the channel closes, the module ends the run itself (its end output has no
    # reader any more), staprun still removes it and reports the signal
    [[ $(cat kill.rc) == 137 ]]
    grep -q 'stapio killed by signal 9' kill.err
}
