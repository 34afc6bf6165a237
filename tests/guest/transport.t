# transport: staprun/stapio drive the transport self-test module (order, exit, signals, loss, errors)
# Used by tests/run (guest/transport); the module is tests/kmod/transport (runtime/transport/*.c).

timeout_s=240
M=transport_selftest

# kbuild_selftest DIR NAME: builds tests/kmod/transport as NAME.ko in DIR.
kbuild_selftest() {
    mkdir -p "$1"
    cp "$TOP"/tests/kmod/transport/selftest.c "$1"/
    sed "s/transport_selftest/$2/g" "$TOP"/tests/kmod/transport/Kbuild >"$1"/Kbuild
    make -s -C "/lib/modules/$KVER/build" M="$CASE_DIR/$1" STP_RUNTIME="$TOP/runtime" modules
    test -f "$1/$2.ko"
}

build() {
    test -x "$TOP/build/bin/staprun" && test -x "$TOP/build/bin/stapio"
    kbuild_selftest . $M
    kbuild_selftest two ${M}2
}

# attach_for_1s NAME [OPTION...]: `staprun OPTION... -A $M` re-attached for a second, then SIGINT to
# its stapio; output in NAME.out and NAME.err, exit status in NAME.rc.
attach_for_1s() {
    local name=$1 pid io rc=0
    shift
    staprun "$@" -A $M >"$name.out" 2>"$name.err" &
    pid=$!
    io=$(stapio_of $pid)
    sleep 1
    kill -INT "$io"
    wait $pid || rc=$?
    echo $rc >"$name.rc"
}

# wait_proc NAME: until /proc/systemtap/NAME/.cmd exists (the module is loaded).
wait_proc() {
    local i
    for i in $(seq 100); do
        [[ -e /proc/systemtap/$1/.cmd ]] && return 0
        nap 0.1
    done
    return 1
}

# signal_run NAME SIGNAL TARGET: endless run ended by SIGNAL sent to stapio or staprun.
signal_run() {
    local name=$1 sig=$2 target=$3 pid io rc=0
    staprun $M.ko count=0 period_us=5000 >"$name.out" 2>"$name.err" &
    pid=$!
    io=$(stapio_of $pid)
    sleep 1
    if [[ $name == int ]]; then
        # while attached: a second opener of .cmd is refused
        not bash -c "exec 3<>/proc/systemtap/$M/.cmd" 2>busy.err
    fi
    if [[ $target == stapio ]]; then kill -"$sig" "$io"; else kill -"$sig" "$pid"; fi
    wait $pid || rc=$?
    echo $rc >"$name.rc"
    not loaded $M
}

guest() {
    not loaded $M

    # exit request (count reached) ends the run; "end" from session_stop comes last
    staprun $M.ko count=20 >exit.out 2>exit.err
    not loaded $M

    # -o FILE, module parameters, records from both CPUs merged in order
    staprun -o file.out $M.ko count=300 period_us=500 >file.stdout 2>file.err
    not loaded $M

    # fast records from both CPUs: stapio must hold records back across rounds
    # until a seq hole fills (-v: holes it had to write past are in fast.err)
    staprun -v $M.ko count=5000 period_us=200 burst=2 bufsize=4194304 >fast.out 2>fast.err
    not loaded $M

    # SIGINT to stapio (what the terminal does), SIGTERM/SIGHUP to staprun (forwarded)
    signal_run int INT stapio
    signal_run term TERM staprun
    signal_run hup HUP staprun
    # SIGKILL to stapio: the module stops the session when .cmd closes, staprun still unloads
    signal_run kill KILL stapio

    # rings overflow: whole records dropped, counted, reported
    staprun $M.ko count=3000 burst=300 pad=2000 period_us=2000 >loss.out 2>loss.err
    not loaded $M

    # -v: loss is reported as it happens ("lost" messages, about once a second)
    staprun -v $M.ko count=0 burst=300 pad=2000 period_us=2000 >vloss.out 2>vloss.err & pid=$!
    io=$(stapio_of $pid)
    sleep 3
    kill -INT $io
    wait $pid
    not loaded $M

    # start refused by the module
    rc=0; staprun $M.ko fail_start=1 >fail.out 2>fail.err || rc=$?
    echo $rc >fail.rc
    not loaded $M

    # rmmod during a run: the module ends it (drain, end, "stopped"), staprun exits 0
    staprun $M.ko count=0 period_us=5000 >rmmod.out 2>rmmod.err & pid=$!
    stapio_of $pid >/dev/null
    sleep 1
    rmmod $M
    rc=0; wait $pid || rc=$?
    echo $rc >rmmod.rc
    not loaded $M

    # module of that name already loaded; missing file; not a module
    insmod $M.ko
    rc=0; staprun $M.ko >dup.out 2>dup.err || rc=$?
    echo $rc >dup.rc
    # open files do not pin the module: rmmod works at once, later reads fail
    exec 3<>/proc/systemtap/$M/.cmd
    exec 4</proc/systemtap/$M/trace0
    rmmod $M
    not loaded $M
    not cat <&4 2>eio.err
    exec 3<&- 4<&-
    not staprun /nonexistent/foo.ko 2>missing.err
    not staprun exit.out 2>notko.err
    not loaded $M

    # -x PID and -c CMD: "target PID" before start; the run ends when CMD exits
    staprun -x 1 $M.ko count=3 >x.out 2>x.err
    rc=0; staprun -c 'echo $$ >c.pid; exec sleep 1' $M.ko count=0 period_us=5000 >c.out 2>c.err || rc=$?
    echo $rc >c.rc
    not staprun -x 999999 $M.ko 2>xbad.err
    not loaded $M

    # -L: start and detach, the run goes on; -A attaches and continues it in order
    staprun -L $M.ko count=0 period_us=20000 >det.out 2>det.err
    loaded $M
    sleep 1
    attach_for_1s att
    not loaded $M

    # -F: a detached flight recorder keeps the latest records (128 KiB rings, ~2 MB/s)
    staprun -F $M.ko count=0 period_us=1000 burst=4 pad=200 bufsize=131072 >fl.out 2>fl.err
    sleep 3
    not cat /proc/systemtap/$M/trace0 >/dev/null 2>fl-busy.err
    attach_for_1s fla -v
    not loaded $M
    not staprun /nonexistent/foo.ko 2>missing.err
    not staprun exit.out 2>notko.err
    not loaded $M

    # two modules at once share /proc/systemtap
    staprun $M.ko count=100 period_us=3000 >two-a.out 2>two-a.err & a=$!
    staprun two/${M}2.ko count=100 period_us=2000 >two-b.out 2>two-b.err & b=$!
    wait $a
    wait $b
    not loaded $M
    not loaded ${M}2
    test -d /proc/systemtap
    test -z "$(ls /proc/systemtap)"
}

# records FILE: the record numbers of FILE's "record N cpu C" lines.
records() { sed -n 's/^record \([0-9]*\) cpu.*/\1/p' "$1"; }

# in_order FILE FIRST LAST: FILE is begin, record FIRST..LAST, end.
in_order() {
    local expect
    expect=$( { echo begin; seq "$2" "$3" | sed 's/.*/record & cpu X/'; echo end; } )
    diff <(sed 's/ cpu [0-9]*$/ cpu X/' "$1") <(echo "$expect")
}

# endless FILE: begin, record 1..k (k >= 1) without gaps, end.
endless() {
    local k
    k=$(records "$1" | tail -n 1)
    (( k >= 1 ))
    in_order "$1" 1 "$k"
}

check() {
    in_order exit.out 1 20
    grep -qx 'selftest: started' exit.err
    not grep -q 'WARNING' exit.err

    test ! -s file.stdout
    in_order file.out 1 300
    # both CPUs produced records, so the merge across CPUs was exercised
    (( $(sed -n 's/^record .* cpu \([0-9]*\)$/\1/p' file.out | sort -u | wc -l) >= 2 ))

    in_order fast.out 1 5000
    (( $(sed -n 's/^record .* cpu \([0-9]*\)$/\1/p' fast.out | sort -u | wc -l) >= 2 ))
    not grep -q 'WARNING' fast.err

    for run in int term hup; do
        [[ $(cat $run.rc) == 0 ]]
        endless $run.out
    done
    grep -q 'Device or resource busy' busy.err
    [[ $(cat kill.rc) == 137 ]]
    grep -q 'stapio killed by signal 9' kill.err

    # lost + printed == produced (3000 records, plus "end" if it was dropped too)
    local lost printed end=0
    lost=$(sed -n 's/^WARNING: \([0-9]*\) records ([0-9]* bytes) lost$/\1/p' loss.err)
    (( lost > 0 ))
    printed=$(records loss.out | wc -l)
    tail -n 1 loss.out | grep -qx end || end=1
    (( printed + lost == 3000 + end ))
    diff <(records loss.out) <(records loss.out | sort -n)
    head -n 1 loss.out | grep -qx begin

    grep -Eq '^WARNING: [0-9]+ records \([0-9]+ bytes\) lost so far$' vloss.err
    grep -Eq '^WARNING: [0-9]+ records \([0-9]+ bytes\) lost$' vloss.err
    tail -n 1 vloss.out | grep -qx end

    [[ $(cat fail.rc) == 1 ]]
    grep -qx 'ERROR: selftest: start refused (fail_start=1)' fail.err
    [[ $(cat dup.rc) == 1 ]]
    grep -q "already loaded" dup.err

    [[ $(cat rmmod.rc) == 0 ]]
    endless rmmod.out
    grep -q 'Input/output error' eio.err

    diff <(sed 's/ cpu [0-9]*$/ cpu X/' x.out) \
         <(printf 'target 1\nbegin\nrecord 1 cpu X\nrecord 2 cpu X\nrecord 3 cpu X\nend\n')
    [[ $(cat c.rc) == 0 ]]
    [[ $(sed -n 1p c.out) == "target $(cat c.pid)" ]]
    tail -n 1 c.out | grep -qx end
    grep -q 'no such process' xbad.err

    grep -q "staprun -A $M" det.err
    [[ $(cat att.rc) == 0 ]]
    endless att.out

    [[ $(cat fla.rc) == 0 ]]
    grep -q 'Device or resource busy' fl-busy.err
    # the oldest records were discarded: no begin, a later first record, still in order
    not grep -qx begin fla.out
    (( $(records fla.out | head -n 1) > 1 ))
    diff <(records fla.out) <(records fla.out | sort -n -u)
    tail -n 1 fla.out | grep -qx end
    grep -q 'flight recorder discarded' fla.err
    for f in *.err; do not grep -q 'cannot release' $f; done
    grep -q 'cannot open module /nonexistent/foo.ko' missing.err
    grep -q 'cannot load module exit.out' notko.err

    in_order two-a.out 1 100
    in_order two-b.out 1 100
}
