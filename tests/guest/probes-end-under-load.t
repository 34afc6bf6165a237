# A hot kprobe, DWARF probe and tracepoints end under load 12 times in a row: no oops, hang or warning
# Used by tests/run (issues 14, 20): kprobe and tracepoint unregistration while handlers run on both CPUs.

# runs of 6 to 12 s each on an -rt kernel under TCG beside the default batch (180 s for 20 once)
timeout_s=480

# 12 rounds on the default kernel, six ending by exit() and six by SIGINT, each under the same load on both
# CPUs (each round one more chance for an unregistration to race a handler; 20 took 8 more rounds of about 3 s
# of guest time each for that chance); 8 where the short list runs it again (tests/kernels-short.list: each -rt
# kernel), which checks that kernel's own locking ends the same probes cleanly
RUNS=12
[[ -z ${TESTS_OTHER_KERNEL:-} ]] || RUNS=8

build() {
    need_kernel_dwarf
    # every hit does a little work on shared state; half the runs end by exit() (once every kind
    # has hit: the timer may first fire just after the session starts), half by SIGINT.
    # dd's bs=1 read() and write() make ksys_read (DWARF, with its $count) and vfs_write (kprobe) hot.
    $STAP -p4 -m t_tphot -e '
global sw, sys, kp, dw, names, by_exit = 0
probe kernel.trace("sched:sched_switch") { sw <<< 1; names[kernel_string($next->comm)] <<< $next->pid }
probe kernel.trace("raw_syscalls:sys_enter") { sys <<< $id }
probe kernel.trace("raw_syscalls:sys_exit") { sys <<< $ret }
probe kprobe.function("vfs_write") { kp <<< pid() }
probe kernel.function("ksys_read") { dw <<< $count }
probe timer.ms(300) { if (by_exit && @count(sw) && @count(sys) && @count(kp) && @count(dw)) exit() }
probe end { printf("hits %d %d %d %d\n", @count(sw), @count(sys), @count(kp), @count(dw)) }' >/dev/null
}

guest() {
    local i pid stapio dd1 dd2 t0
    # dd on both CPUs for the whole test: a syscall and a switch every few microseconds
    (while :; do dd if=/dev/zero of=/dev/null bs=1 count=100000 2>/dev/null; done) &
    dd1=$!
    (while :; do dd if=/dev/zero of=/dev/null bs=1 count=100000 2>/dev/null; done) &
    dd2=$!
    # (the loop's own bookkeeping in bash alone: a date or sleep per run cost the host ~0.1 s of CPU each)
    for ((i = 1; i <= RUNS; i++)); do
        t0=${EPOCHREALTIME/./}
        if (( i % 2 )); then
            staprun t_tphot.ko by_exit=1 >>runs.out 2>>runs.err
        else
            staprun t_tphot.ko >>runs.out 2>>runs.err &
            pid=$!
            stapio=$(stapio_of $pid)
            nap 0.3
            kill -INT "$stapio"
            wait $pid
        fi
        echo "run $i rc $?" >>runs.out
        echo "run $i ms $(( (${EPOCHREALTIME/./} - t0) / 1000 ))" >>runs.out
    done
    kill $dd1 $dd2
    wait $dd1 $dd2 2>/dev/null || true
    not loaded t_tphot
    echo "guest seconds $SECONDS"
}

check() {
    [[ $(cat rc) == 0 ]]
    local i
    for i in $(seq $RUNS); do
        grep -qx "run $i rc 0" runs.out
    done
    # every run counted switches, syscalls, vfs_write kprobe hits and ksys_read DWARF hits
    [[ $(grep -Ec '^hits [1-9][0-9]* [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*$' runs.out) == "$RUNS" ]]
    only_skip_warnings runs.err
}
