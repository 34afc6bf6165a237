# process-lifecycle: process.begin/.end/.thread.begin/.thread.end, process("PATH")... and process(PID)... on tests/uprobe/procs.c (two threads, a forked child that execs a copy of true): exact pids and tids, -c and -x scoping, begin for processes running at start
# Used by tests/run (issue 17): translator/providers/process.c, runtime/probes/process.c.

timeout_s=400
XPID=30000     # the -x process is started with this pid (ns_last_pid)

build() {
    gcc -g -O0 -pthread -o procs "$TOP/tests/uprobe/procs.c"
    cp /bin/true ptrue
    P=$CASE_DIR/procs
    # armed first, then three runs: every process running procs (the program and its forked child
    # until the exec), its threads, and the exec'd copy of true
    $STAP -p4 -m t_pcpath -e '
global ne, te, armed
probe timer.ms(50) { if (!armed++) println("armed") }   # RUNNING: every family armed
probe process(@1).begin { printf("begin %d\n", pid()) }
probe process(@1).end { printf("end %d\n", pid()); ne++ }
probe process(@1).thread.begin { printf("tbegin %d %d\n", pid(), tid()) }
probe process(@1).thread.end { printf("tend %d %d\n", pid(), tid()) }
probe process(@2).begin { printf("xbegin %d %s\n", pid(), execname()) }
probe process(@2).end { printf("xend %d\n", pid()); te++ }
probe process.begin { printf("abegin %d\n", pid()) }
probe process.thread.begin { printf("atbegin %d\n", tid()) }
# last: the probes of one event run in the order written, so this one sees the others counted
probe process.end { printf("aend %d\n", pid()); if (ne == 6 && te == 3) exit() }
probe timer.s(200) { println("timeout"); exit() }' "$P" "$CASE_DIR/ptrue" >/dev/null
    # -c: every process and thread, scoped to target() and its descendants
    $STAP -p4 -m t_pcall -e '
probe process.begin { printf("begin %d\n", pid()) }
probe process.end { printf("end %d\n", pid()) }
probe process.thread.begin { printf("tbegin %d\n", tid()) }
probe process.thread.end { printf("tend %d\n", tid()) }
probe end { printf("target %d\n", target()) }' >/dev/null
    # -x: that pid (running at start) and, for process.end, its descendants
    $STAP -p4 -m t_pcpid -e '
global armed
probe timer.ms(50) { if (!armed++) println("armed") }   # RUNNING: every family armed
probe process('$XPID').begin { printf("begin %d %d\n", pid(), target()) }
probe process('$XPID').thread.begin { printf("tbegin %d\n", tid()) }
probe process('$XPID').thread.end { printf("tend %d\n", tid()) }
probe process.end { if (pid() != '$XPID') printf("other-end %d\n", pid()) }
probe process('$XPID').end { printf("end %d\n", pid()); exit() }
probe timer.s(200) { println("timeout"); exit() }' >/dev/null
    # processes of PATH already running when the run starts
    $STAP -p4 -m t_pcrun -e '
global n, armed
probe timer.ms(50) { if (!armed++) println("armed") }   # RUNNING: every family armed
probe process(@1).begin { printf("begin %d\n", pid()) }
probe process(@1).end { printf("end %d\n", pid()); if (++n == 4) exit() }
probe timer.s(200) { println("timeout"); exit() }' "$P" >/dev/null
    # the translator: names, errors
    PATH=$CASE_DIR:$PATH $STAP -p2 -e 'probe process("procs").thread.end, process(7).begin, process.end {}' >names.out
    not $STAP -p2 -e 'probe process.thread.foo {}' 2>badthread.err
    not $STAP -p2 -e 'probe process("no-such-program-here").begin {}' 2>nofile.err
}

guest() {
    local i run st
    staprun t_pcpath.ko >path.out 2>path.err &
    st=$!
    for i in $(seq 600); do file_has path.out '^armed' && break; nap 0.1; done
    for i in 1 2 3; do ./procs "$CASE_DIR/ptrue" rep$i; done
    wait $st
    for i in 1 2; do
        staprun -c "$CASE_DIR/procs $CASE_DIR/ptrue crep$i" t_pcall.ko >all$i.out 2>all$i.err
    done
    # -x: the program started with pid XPID, waiting for a file
    for i in $(seq 20); do
        rm -f go
        echo $((XPID - 1)) >/proc/sys/kernel/ns_last_pid
        ./procs "$CASE_DIR/ptrue" xrep go &
        run=$!
        [[ $run == "$XPID" ]] && break
        touch go
        wait $run
    done
    staprun -x $XPID t_pcpid.ko >pid.out 2>pid.err &
    st=$!
    for i in $(seq 600); do file_has pid.out '^armed' && break; nap 0.1; done
    touch go
    wait $run
    wait $st
    # two copies running (waiting for a file) before the run starts
    rm -f go
    ./procs "$CASE_DIR/ptrue" rrep1 go &
    run=$!
    ./procs "$CASE_DIR/ptrue" rrep2 go &
    st=$!
    staprun t_pcrun.ko >run.out 2>run.err &
    for i in $(seq 600); do file_has run.out '^armed' && break; nap 0.1; done
    touch go
    wait $run
    wait $st
    wait
}

# the value after WORD in report files
field() { local w=$1; shift; awk -v w="$w" '$1 == w { print $2 }' "$@"; }

check() {
    local i expect t
    ! grep -q timeout path.out
    only_skip_warnings path.err
    # each run: begin and end of the program and of its forked child (which leaves procs at its
    # exec), its two threads, and the exec'd true as that child's pid
    expect=$(field procs rep1 rep2 rep3; field child rep1 rep2 rep3)
    diff <(echo "$expect" | sort -n) <(field begin path.out | sort -n)
    diff <(echo "$expect" | sort -n) <(field end path.out | sort -n)
    diff <(field thread rep1 rep2 rep3 | sort -n) <(awk '$1 == "tbegin" { print $3 }' path.out | sort -n)
    diff <(field thread rep1 rep2 rep3 | sort -n) <(awk '$1 == "tend" { print $3 }' path.out | sort -n)
    for i in 1 2 3; do
        [[ $(awk -v p="$(field procs rep$i)" '$1 ~ /^t(begin|end)$/ && $2 == p' path.out | wc -l) == 4 ]]
    done
    diff <(field child rep1 rep2 rep3 | sed 's/$/ ptrue/' | sort -n) \
        <(awk '$1 == "xbegin" { print $2, $3 }' path.out | sort -n)
    diff <(field child rep1 rep2 rep3 | sort -n) <(field xend path.out | sort -n)
    [[ $(grep -vcE '^(abegin|aend|atbegin) ' path.out) == $((1 + 6 + 6 + 6 + 6 + 3 + 3)) ]]
    # process.begin/.end (no target: every process) saw each of them once, at the fork (the
    # program from the shell) and at the exit; the threads through process.thread.begin
    for t in $(field procs rep1 rep2 rep3; field child rep1 rep2 rep3); do
        [[ $(grep -cx "abegin $t" path.out) == 1 && $(grep -cx "aend $t" path.out) == 1 ]]
    done
    for t in $(field thread rep1 rep2 rep3); do
        [[ $(grep -cx "atbegin $t" path.out) == 1 ]]
    done
    # -c: the target (and the program, if a shell ran it) and the forked child, nothing else
    for i in 1 2; do
        only_skip_warnings all$i.err
        t=$(field target all$i.out)
        expect=$( (echo "$t"; field procs crep$i; field child crep$i) | sort -nu)
        diff <(echo "$expect") <(field begin all$i.out | sort -n)
        diff <(echo "$expect") <(field end all$i.out | sort -n)
        diff <(field thread crep$i | sort -n) <(field tbegin all$i.out | sort -n)
        diff <(field thread crep$i | sort -n) <(field tend all$i.out | sort -n)
    done
    # -x: begin (running at start) and end of that pid, its threads; the child only through process.end
    only_skip_warnings pid.err
    [[ $(field procs xrep) == "$XPID" ]]
    grep -qx armed pid.out
    [[ $(grep '^begin' pid.out) == "begin $XPID $XPID" ]]
    diff <(field thread xrep | sort -n) <(field tbegin pid.out | sort -n)
    diff <(field thread xrep | sort -n) <(field tend pid.out | sort -n)
    [[ $(field other-end pid.out) == $(field child xrep) ]]
    [[ $(tail -1 pid.out) == "end $XPID" && $(wc -l <pid.out) == 8 ]]
    # running at start: both copies (begin at start) and their forked children
    only_skip_warnings run.err
    expect=$(field procs rrep1 rrep2; field child rrep1 rrep2)
    diff <(echo "$expect" | sort -n) <(field begin run.out | sort -n)
    diff <(echo "$expect" | sort -n) <(field end run.out | sort -n)
    # the translator
    grep -q "process(\"$CASE_DIR/procs\").thread.end" names.out
    grep -q 'process(7).begin' names.out
    grep -q 'process.end' names.out
    grep -q 'process(...).thread is followed by .begin or .end' badthread.err
    grep -q "no executable 'no-such-program-here' in \$PATH" nofile.err
}
