# perf-process-path: perf events bound to a named program, perf.sw.page_faults.process("PATH"): a process running it at start and one exec'ing it later are counted (hits and a counter), a copy of the program under another name is not
# Used by tests/run (issue 31): translator/providers/perf.c, runtime/probes/perf_proc.h.

timeout_s=300

build() {
    gcc -O1 -o pftouch "$TOP/tests/perf/pftouch.c"
    cp pftouch pfother
    $STAP -p4 -m t_ppath -e '
global hits
probe begin { println("armed") }
probe perf.sw.page_faults.process("'"$CASE_DIR"'/pftouch").sample(1) { hits[execname()]++ }
probe perf.type(1).config(2).process("'"$CASE_DIR"'/pftouch").counter("pf") { }
probe end {
    foreach (e in hits) printf("hits %s %d\n", e, hits[e])
    printf("counter %d\n", @perf("pf"))
}' >/dev/null
    # a program is found as process("PATH") finds it (here on $PATH); one that does not exist is an error at its name
    $STAP -p2 -e 'probe perf.sw.cpu_clock.process("pftouch") { }' >/dev/null 2>&1 && return 1
    PATH=$CASE_DIR:$PATH $STAP -p2 -e 'probe perf.sw.cpu_clock.process("pftouch") { }' | grep -qF "perf.type(1).config(0).process(\"pftouch\")"
    not $STAP -p2 -e 'probe perf.sw.cpu_clock.process("/nonexistent/prog") { }' >/dev/null 2>noprog.err
    grep -q '^<input>:1:33: semantic error: process("/nonexistent/prog"): ' noprog.err
}

guest() {
    rm -f go
    ./pftouch go & early=$!
    staprun t_ppath.ko >ppath.out 2>ppath.err & run=$!
    io=$(stapio_of $run)
    waitfor ppath.out armed
    touch go
    wait $early
    ./pftouch
    ./pfother
    kill -INT "$io"
    wait $run
}

check() {
    [[ $(cat rc) == 0 ]] || { cat err ppath.err; return 1; }
    # two runs of pftouch, 4096 faults each, plus the second one's loader; nothing else's
    awk '$1 == "hits" && $2 == "pftouch" && $3 >= 8192 && $3 <= 9500 { ok = 1 } END { exit !ok }' ppath.out
    [[ $(grep -c '^hits ' ppath.out) == 1 ]]
    # the counter saw the same faults
    local n c
    n=$(awk '$1 == "hits" { print $3 }' ppath.out)
    c=$(awk '$1 == "counter" { print $2 }' ppath.out)
    (( c >= 8192 && c <= n + 200 && c + 200 >= n )) || { cat ppath.out; return 1; }
    only_skip_warnings ppath.err
}
