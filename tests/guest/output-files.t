# output files: bulk mode (stap -b) per-CPU files merged back by stap-merge byte for byte, -S rotation, SIGUSR2, -o strftime
# Used by tests/run; covers stapio/outfile.c, stapio/relay.c (bulk), stap-merge/. Modules are built on the host.

timeout_s=150

build() {
    test -x "$TOP/build/bin/stap-merge"
    # bulk: one record per getpriority(0, 1000000 + k) call, a %4b%8b binary part and a numbered line;
    # the calls come in batches from processes pinned to alternating CPUs, one after the other, so the
    # records' order is known: begin, 1..800, end
    $STAP -b -p4 -m of_bulk -e '
probe begin { println("begin") }
probe syscall.getpriority {
    if (which == 0 && who > 1000000 && who <= 1100000) {
        k = who - 1000000
        printf("%4b%8b", k, -k)
        printf("line %d\n", k)
    }
}
probe end { println("end") }' >/dev/null
    perl -e 'print "begin\n"; print pack("Lq", $_, -$_), "line $_\n" for 1 .. 800; print "end\n"' >bulk.expect
    cat >bulk-load.sh <<'EOF'
n=$(nproc)
for b in 0 1 2 3 4 5 6 7; do
    taskset -c $((b % n)) perl -e 'getpriority(0, 1000000 + $_) for $ARGV[0] .. $ARGV[1]' $((b * 100 + 1)) $((b * 100 + 100))
done
EOF

    # rotation: ~5 MB of 1000-byte lines (5000 calls, paced so the rings never fill)
    local pad
    pad=$(printf 'x%.0s' $(seq 990))
    $STAP -p4 -m of_rot -e '
probe syscall.getpriority {
    if (which == 0 && who > 2000000 && who <= 2100000)
        printf("%07d '"$pad"'\n", who - 2000000)
}
probe end { println("end") }' >/dev/null
    cat >rot-load.sh <<'EOF'
perl -e 'for (1 .. 5000) { getpriority(0, 2000000 + $_); select(undef, undef, undef, 0.01) if $_ % 50 == 0 }'
EOF

    # SIGUSR2: a tick every 50 ms until SIGINT
    $STAP -p4 -m of_tick -e '
global n
probe timer.ms(50) { n++; printf("tick %d\n", n) }
probe end { println("end") }' >/dev/null
    $STAP -p4 -m of_hello -e 'probe begin { println("hello"); exit() }' >/dev/null
    # switch_file() from the script: one chunk per file
    $STAP -p4 -m of_switch -e '
global n
probe timer.ms(300) { printf("chunk %d\n", ++n); switch_file(); if (n == 3) exit() }' >/dev/null
}

# nonempty FILE: waits (at most 10 s) until FILE exists and holds data.
nonempty() {
    local i
    for i in $(seq 100); do
        [[ -s $1 ]] && return 0
        nap 0.1
    done
    echo "$1 stayed empty" >&2
    return 1
}

guest() {
    nproc >ncpu
    # bulk mode, from the module (stap -b): trace_cpuN with -o, stpd_cpuN without
    staprun -o trace -c "bash $CASE_DIR/bulk-load.sh" of_bulk.ko >bulk.stdout 2>bulk.err
    mkdir dflt
    (cd dflt && staprun -c "bash $CASE_DIR/bulk-load.sh" ../of_bulk.ko >../dflt.stdout 2>../dflt.err)

    # -S 1,3: files rot/r.out.K of at most 1 MiB, the newest 3 kept
    mkdir rot
    staprun -o rot/r.out -S 1,3 -c "bash $CASE_DIR/rot-load.sh" of_rot.ko >rot.stdout 2>rot.err

    # SIGUSR2 to stapio switches to sw.out.1, then sw.out.2
    staprun -o sw.out of_tick.ko >sw.stdout 2>sw.err & pid=$!
    io=$(stapio_of $pid)
    nonempty sw.out
    kill -USR2 "$io"
    nonempty sw.out.1
    kill -USR2 "$io"
    nonempty sw.out.2
    kill -INT "$io"
    wait $pid

    # switch_file(): chunk 1 in swf.out, chunk 2 in swf.out.1, chunk 3 in swf.out.2
    staprun -o swf.out of_switch.ko >swf.stdout 2>swf.err

    # -o with strftime conversions; -S needs -o
    staprun -o 'tm-%Y-%%.out' of_hello.ko
    echo "tm-$(date +%Y)-%.out" >tm.name
    not staprun -S 1 of_hello.ko 2>noo.err
}

# lines FILE...: FILEs' lines, failing on one that is not a whole "NNNNNNN x..." line or "end".
rot_lines() {
    cat "$@" | perl -ne 'if (/^(\d{7}) x{990}\n\z/) { print "$1\n" } elsif ($_ eq "end\n") { print $_ } else { die "bad line: $_" }'
}

check() {
    local merge=$TOP/build/bin/stap-merge f n

    # bulk: no merged output; a file per CPU, each with records when there are 2 CPUs; merged back
    # they are exactly the expected bytes
    test ! -s bulk.stdout && test ! -s dflt.stdout
    not grep -q WARNING bulk.err dflt.err
    test -f trace_cpu0 && test -f dflt/stpd_cpu0
    if (( $(cat ncpu) >= 2 )); then
        test -s trace_cpu0 && test -s trace_cpu1
        test -s dflt/stpd_cpu0 && test -s dflt/stpd_cpu1
    fi
    "$merge" trace_cpu* >bulk.merged
    cmp bulk.merged bulk.expect
    (cd dflt && "$merge") >dflt.merged
    cmp dflt.merged bulk.expect

    # rotation: 3 files of consecutive numbers, the last one the newest, each at most 1 MiB, whole
    # lines only, ending with the last record and end
    [[ -z $(cat rot.stdout) ]]
    ls rot >rot.ls
    [[ $(wc -l <rot.ls) == 3 ]]
    n=$(sed 's/^r\.out\.//' rot.ls | sort -n | tail -n 1)
    (( n >= 4 ))
    for f in $((n - 2)) $((n - 1)) $n; do
        test -s rot/r.out.$f
        (( $(stat -c %s rot/r.out.$f) <= 1048576 ))
    done
    rot_lines rot/r.out.$((n - 2)) rot/r.out.$((n - 1)) rot/r.out.$n >rot.lines
    [[ $(tail -n 2 rot.lines | tr '\n' ' ') == "0005000 end " ]]
    if ! grep -q WARNING rot.err; then
        # nothing lost: the numbers are consecutive
        diff <(head -n -1 rot.lines | sed 's/^0*//') <(seq "$(head -n 1 rot.lines | sed 's/^0*//')" 5000)
    fi

    # SIGUSR2: three files, together the ticks 1..K without a gap or a torn line, then end
    [[ $(ls sw.out* | tr '\n' ' ') == "sw.out sw.out.1 sw.out.2 " ]]
    test -s sw.out.1
    cat sw.out sw.out.1 sw.out.2 >sw.all
    tail -n 1 sw.all | grep -qx end
    n=$(grep -c '^tick ' sw.all)
    diff <(head -n -1 sw.all) <(seq "$n" | sed 's/^/tick /')

    # switch_file()
    [[ $(cat swf.out) == "chunk 1" && $(cat swf.out.1) == "chunk 2" && $(cat swf.out.2) == "chunk 3" ]]
    (( $(ls swf.out* | wc -l) <= 4 ))

    # strftime
    [[ $(cat "$(cat tm.name)") == hello ]]
    grep -q -- '-S.* -o' noo.err
}
