# kprobe .return counter, timer.ms ticks, and an end probe whose output appears after SIGINT to stapio
# Used by tests/run (issue 2): kretprobes, timer.ms, end probes, SIGINT handling.

build() {
    $STAP -p4 -m t_rte -e '
global returns, ticks
probe kprobe.function("ksys_read").return { returns++ }
probe timer.ms(100) { ticks++ }
probe end { printf("end: returns>0=%d ticks>=3=%d\n", returns > 0, ticks >= 3) }' >/dev/null
}

# signal_stapio SIG: sends SIG to the running stapio process(es).
signal_stapio() {
    local p
    for p in /proc/[0-9]*; do
        [[ $(cat "$p/comm" 2>/dev/null) == stapio ]] && kill "-$1" "${p#/proc/}"
    done
    return 0
}

guest() {
    staprun t_rte.ko &
    local run=$! i
    for i in $(seq 50); do
        [[ -e /proc/systemtap/t_rte/.cmd ]] && break
        nap 0.1
    done
    # reads while armed, long enough for several 100 ms ticks
    for i in $(seq 10); do
        head -c 100 /etc/passwd >/dev/null
        nap 0.1
    done
    signal_stapio INT
    wait $run
    not grep -q '^t_rte ' /proc/modules
}

check() {
    [[ $(cat rc) == 0 ]]
    [[ $(cat out) == "end: returns>0=1 ticks>=3=1" ]]
}
