# uprobe-stress: uprobes under load on tests/uprobe/hot.c: 20 runs in a row with a hot entry and @entry .return probe ending while the program calls the function on both CPUs (it goes on, every call right), a probed program that execs (itself or a copy), one that exits mid-run (others follow), and -c CMD (staprun and stap) plain (target() is the program) and through sh -c
# Used by tests/run (issue 17, robustness of user-space probes): runtime/probes/uprobes.c, runtime/core/target.h, stapio/target.c.

timeout_s=900

# (b), (d): the target, its children, anyone else
TSCRIPT='global me, kid, other
probe process(@1).function("hot_fn") { if (pid() == target()) me++; else if (ppid() == target()) kid++; else other++ }
probe end { printf("target %d me %d kid %d other %d\n", target(), me, kid, other) }'

build() {
    gcc -g -O2 -pthread -o hot "$TOP/tests/uprobe/hot.c"
    # the same program in another file: probes on hot do not fire in it
    cp hot hot-copy
    P=$CASE_DIR/hot
    # (a) a hot entry probe and a .return probe with an @entry value (its slot table used from
    # both CPUs); the run ends itself after some hits of each (statistics read only by @count
    # take no lock: no hit is skipped for lock contention)
    $STAP -p4 -m t_ustress -DMAXSKIPPED=1000000 -e '
global n, r, bad
probe process(@1).function("hot_fn") { n <<< 1 }
probe process(@1).function("hot_fn").return { r <<< 1; if ($return != @entry($x) * 3 + 1) bad <<< 1 }
probe timer.ms(100) { if (@count(n) >= 100 && @count(r) >= 100) exit() }
probe end { printf("stress %s bad %d\n", @count(n) >= 100 && @count(r) >= 100 ? "ok" : "few", @count(bad)) }' "$P" >/dev/null
    $STAP -p4 -m t_utarget -e "$TSCRIPT" "$P" >/dev/null
    # the same for stap -c in the guest: this fills the module cache it hits there (no gcc there)
    $STAP -p4 -e "$TSCRIPT" "$P" >/dev/null
    # each probe point has its own handler (the fast path: its descriptor known at compile time)
    $STAP -p3 -e "$TSCRIPT" "$P" >gen.c
    grep -q '^STP_UPROBE_TRAMPOLINE(0)$' gen.c
    grep -q '\.hit = stp_uprobe_hit_0 ' gen.c
    # (c) processes exit while armed: the calls of each main thread, printed at its end; the run
    # goes on until the third has ended
    $STAP -p4 -m t_uexit -e '
global c, ends, armed
probe timer.ms(50) { if (!armed++) println("armed") }   # RUNNING: every family armed
probe process(@1).function("hot_fn") { c[pid(), tid()]++ }
probe process(@1).end { printf("end %d %d\n", pid(), c[pid(), pid()]); if (++ends == 3) exit() }
probe timer.s(600) { println("timeout"); exit() }' "$P" >/dev/null
}

guest() {
    local i rc prog st
    # (a) the program runs on both CPUs while 20 runs start and end
    rm -f stop ready
    ./hot loop stop ready >loop.prog 2>&1 &
    prog=$!
    for ((i = 0; i < 600; i++)); do [[ -e ready ]] && break; nap 0.1; done
    local mod alive
    for ((i = 1; i <= 20; i++)); do
        rc=0
        staprun t_ustress.ko >>stress.out 2>>stress.err || rc=$?
        if loaded t_ustress; then mod=loaded; else mod=gone; fi
        if kill -0 $prog 2>/dev/null; then alive=alive; else alive=dead; fi
        echo "run $i rc $rc $mod $alive" >>stress.runs
    done
    touch stop
    rc=0
    wait $prog || rc=$?
    echo "prog rc $rc" >>stress.runs
    # (b) exec mid-run: into a copy of the file (not probed), into the same file (probed again)
    staprun -c "$CASE_DIR/hot exec 1000 $CASE_DIR/hot-copy count 500" t_utarget.ko >exec1.out
    staprun -c "$CASE_DIR/hot exec 1000 $CASE_DIR/hot count 300" t_utarget.ko >exec2.out
    # (c) three processes exit while the run goes on; the second while its other thread calls
    staprun t_uexit.ko >exit.out 2>exit.err &
    st=$!
    for ((i = 0; i < 600; i++)); do file_has exit.out '^armed' && break; nap 0.1; done
    ./hot count 400 >exit1.prog
    ./hot exitmid 600 >exit2.prog
    ./hot count 700 >exit3.prog
    wait $st
    # (d) -c: a plain command is the target itself; one with shell syntax runs under sh -c, the
    # shell is the target and the program its child
    staprun -c "$CASE_DIR/hot count 1234" t_utarget.ko >plain.out
    staprun -c "cd '$CASE_DIR' && ./hot count 321 >meta.prog; echo \$\$ >meta.sh" t_utarget.ko >meta.out
    # stap -c, both forms
    stap -c "$CASE_DIR/hot count 777" -e "$TSCRIPT" "$CASE_DIR/hot" >stapplain.out
    stap -c "cd '$CASE_DIR' && ./hot count 55 >stapmeta.prog; echo \$\$ >stapmeta.sh" -e "$TSCRIPT" "$CASE_DIR/hot" \
        >stapmeta.out
}

check() {
    local i p
    # (a) every run ended cleanly with the module gone, the program running; it ended normally
    # with every one of its calls right on both threads
    for i in $(seq 20); do grep -qx "run $i rc 0 gone alive" stress.runs; done
    grep -qx 'prog rc 0' stress.runs
    grep -Eqx 'hot loop calls [1-9][0-9]* [1-9][0-9]* bad 0' loop.prog
    [[ $(grep -cx 'stress ok bad 0' stress.out) == 20 && $(wc -l <stress.out) == 20 ]]
    only_skip_warnings stress.err
    # (b) the calls before the exec exactly; a copy of the file is not probed, the same file is
    p=$(sed -n 's/^hot exec pid \([0-9]*\) calls 1000 bad 0$/\1/p' exec1.out)
    [[ -n $p ]]
    grep -qx "hot pid $p ppid [0-9]* calls 500 bad 0" exec1.out
    grep -qx "target $p me 1000 kid 0 other 0" exec1.out
    p=$(sed -n 's/^hot exec pid \([0-9]*\) calls 1000 bad 0$/\1/p' exec2.out)
    [[ -n $p ]]
    grep -qx "hot pid $p ppid [0-9]* calls 300 bad 0" exec2.out
    grep -qx "target $p me 1300 kid 0 other 0" exec2.out
    # (c) each process's calls exactly, at its end; the run ended after the third
    p=$(sed -n 's/^hot pid \([0-9]*\) .* calls 400 bad 0$/\1/p' exit1.prog)
    grep -qx "end $p 400" exit.out
    p=$(sed -n 's/^hot exitmid pid \([0-9]*\) calls 600 bad 0$/\1/p' exit2.prog)
    grep -qx "end $p 600" exit.out
    p=$(sed -n 's/^hot pid \([0-9]*\) .* calls 700 bad 0$/\1/p' exit3.prog)
    grep -qx "end $p 700" exit.out
    [[ $(grep -c '^end ' exit.out) == 3 ]]
    not grep -q timeout exit.out
    only_skip_warnings exit.err
    # (d) plain: target() is the program's pid; through the shell: target() is the shell, whose
    # child the program is
    p=$(sed -n 's/^hot pid \([0-9]*\) ppid [0-9]* calls 1234 bad 0$/\1/p' plain.out)
    [[ -n $p ]]
    grep -qx "target $p me 1234 kid 0 other 0" plain.out
    p=$(cat meta.sh)
    grep -qx "hot pid [0-9]* ppid $p calls 321 bad 0" meta.prog
    grep -qx "target $p me 0 kid 321 other 0" meta.out
    p=$(sed -n 's/^hot pid \([0-9]*\) ppid [0-9]* calls 777 bad 0$/\1/p' stapplain.out)
    [[ -n $p ]]
    grep -qx "target $p me 777 kid 0 other 0" stapplain.out
    p=$(cat stapmeta.sh)
    grep -qx "hot pid [0-9]* ppid $p calls 55 bad 0" stapmeta.prog
    grep -qx "target $p me 0 kid 55 other 0" stapmeta.out
}
