# args-probe-point: probe points and numbers given on the command line as $1.. (SystemTap's token substitution) in a loaded module
# Used by tests/run (issue 31): probe $1, probe $1.return, a timer from $2, an expression from $3, @4 as a string.

build() {
    cat >argpp.stp <<'SCRIPT'
global calls, returns
probe $1 { if (execname() == @4) calls++ }
probe $1.return { if (execname() == @4) returns++ }
probe $2 {
    printf("%s calls>=%d:%d returns>=%d:%d\n", @1, $3, calls >= $3, $3, returns >= $3)
    exit()
}
SCRIPT
    $STAP -p4 -m t_argpp argpp.stp 'kprobe.function("ksys_read")' 'timer.ms(700)' '100 * 5' dd >/dev/null
}

guest() {
    staprun t_argpp.ko &
    local run=$!
    while kill -0 $run 2>/dev/null; do
        dd if=/dev/zero of=/dev/null bs=1 count=1000 2>/dev/null
    done
    wait $run
}

check() {
    [[ $(cat rc) == 0 ]]
    # $3 is "100 * 5": the tokens, so the threshold printed is 500; @1 is the argument's text
    grep -qx 'kprobe.function("ksys_read") calls>=500:1 returns>=500:1' out
}
