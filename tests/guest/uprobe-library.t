# uprobe-library: process("LIB").function and process("EXE").library("LIB").function/.mark on a shared library (tests/uprobe/ulib), its globals, statics, array elements, -O2 locals, @cast/@var against it; libc's malloc $bytes through libc6-dbg's separate debuginfo; libstdc++'s throw/catch markers
# Used by tests/run (issue 17): translator/providers/ulibs.c, the load bias of runtime/probes/uprobes.c, dwarf/loc.c's user globals.

timeout_s=300

build() {
    local src=$TOP/tests/uprobe/ulib
    gcc -g -O0 -fPIC -shared -o libulib.so "$src/libulib.c"
    gcc -g -O0 -I"$src" -o ulibmain "$src/ulibmain.c" -L. -lulib -Wl,-rpath,'$ORIGIN'
    cp ulibmain ulibcopy
    mkdir -p o2
    gcc -g -O2 -fPIC -shared -o o2/libulib.so "$src/libulib.c"
    gcc -g -O0 -I"$src" -o o2/ulibmain "$src/ulibmain.c" -Lo2 -lulib -Wl,-rpath,'$ORIGIN'
    gcc -O0 -fPIC -shared -o libnodbg.so "$src/libulib.c"
    strip libnodbg.so
    g++ -g -O0 -o throw "$TOP/tests/uprobe/throw.cc"
    # DWARF only in .debug/libsep.so.debug, named by the library's .gnu_debuglink
    gcc -g -O0 -fPIC -shared -o libsep.so "$src/libulib.c"
    mkdir -p .debug
    objcopy --only-keep-debug libsep.so .debug/libsep.so.debug
    objcopy --strip-debug --add-gnu-debuglink=.debug/libsep.so.debug libsep.so
    gcc -g -O0 -I"$src" -o ulibsep "$src/ulibmain.c" -L. -lsep -Wl,-rpath,'$ORIGIN'
    $STAP -p4 -m t_ulsep -e '
probe process(@1).library("libsep.so").function("ulib_step") { printf("sep %d %d %d\n", $k, $ulib_counter, $ulib_table[1]) }' \
        "$CASE_DIR/ulibsep" >/dev/null
    # a static of the (position-independent) executable, at the entry and at the return; one of the
    # library, located through the process's memory map
    $STAP -p4 -m t_ulexe -e '
probe process(@1).function("note_round") {
    printf("round %d %d lib %d\n", $i, $main_rounds, @var("ulib_counter@libulib.c", @2))
}
probe process(@1).function("note_round").return { printf("round= %d %d\n", $return, @var("main_rounds@ulibmain.c")) }' \
        "$CASE_DIR/ulibmain" "$CASE_DIR/libulib.so" >/dev/null
    local L=$CASE_DIR/libulib.so
    # the library by path: entry values, globals at the entry and (@var) at the return
    $STAP -p4 -m t_ulpath -e '
probe process(@1).function("ulib_step") { printf("step %d calls %d counter %d\n", $k, $ulib_state->calls, $ulib_counter) }
probe process(@1).function("ulib_step").return {
    printf("step= %d %d %d total %d counter %d\n", $return, $k, $ulib_state->calls,
           @var("ulib_state@libulib.c")->total, @var("ulib_counter@libulib.c"))
}
probe process(@1).function("ulib_done") {
    printf("done %d %s table %d %d %d %d\n", $steps, user_string($ulib_state->name), $ulib_table[1], $ulib_table[2],
           $ulib_table[3], $ulib_table[4])
}' "$L" >/dev/null
    # by soname from the executable, -O2: location lists of locals, @cast and @var against the library
    $STAP -p4 -m t_ulo2 -e '
probe process(@1).library("libulib.so").function("ulib_sum") {
    printf("sum %d i %d n %d calls %d cast %d %d var %d\n", $sum, $i, $n, $s->calls,
           @cast($s, "struct ulib_state", @2)->calls, @cast($s, "ulib_state_t", @2)->total,
           @var("ulib_counter@libulib.c", @2))
    printf("locals %s\nvars %s\n", $$locals, $$vars)
}
probe process(@1).library("libulib.so").function("ulib_step").return { printf("o2 step= %d\n", $return) }' \
        "$CASE_DIR/o2/ulibmain" "$CASE_DIR/o2/libulib.so" >/dev/null
    # armed before the programs start, no target: every process mapping the library counts
    $STAP -p4 -m t_ulall -e '
global steps, pids, names, fin
probe begin { println("armed") }
probe process(@1).library("libulib.so").function("ulib_step") { steps++; pids[pid()]++; names[execname()]++ }
probe process(@1).library("libulib.so").function("ulib_done") { if (++fin == 3) exit() }
probe end {
    n = 0; foreach (p in pids) n++
    printf("steps %d pids %d ulibmain %d ulibcopy %d finish %d\n", steps, n, names["ulibmain"], names["ulibcopy"], fin)
}' "$CASE_DIR/ulibmain" >/dev/null
    # libc by path, its DWARF from libc6-dbg (/usr/lib/debug/.build-id); malloc is __libc_malloc's alias
    $STAP -p4 -m t_ulmalloc -e '
probe process("/lib/x86_64-linux-gnu/libc.so.6").function("malloc") {
    if ($bytes > 70000 && $bytes < 70100) printf("malloc %d\n", $bytes)
}' >/dev/null
    # libstdc++'s SDT markers, by path and through the C++ program's libraries
    $STAP -p4 -m t_ulthrow -e '
global t1, t2, c1, c2
probe process("/usr/lib/x86_64-linux-gnu/libstdc++.so.6").mark("throw") { t1++ }
probe process(@1).library("libstdc++.so.6").mark("throw") { t2++ }
probe process("/usr/lib/x86_64-linux-gnu/libstdc++.so.6").mark("catch") { c1++ }
probe process(@1).library("libstdc++.so.*").provider("libstdcxx").mark("catch") { c2++ }
probe end { printf("throw %d %d catch %d %d\n", t1, t2, c1, c2) }' "$CASE_DIR/throw" >/dev/null
    # the translator: -L through .library; errors
    PATH=$CASE_DIR:$PATH $STAP -L 'process("ulibmain").library("libulib.so").function("*")' >list.out
    $STAP -L 'process("libc.so.6").function("malloc")' >listc.out
    not $STAP -p2 -e 'probe process(@1).library("libnosuch-ulib.so.9").function("f") {}' "$CASE_DIR/ulibmain" 2>nolib.err
    not $STAP -p2 -e 'probe process(@1).function("ulib_step") { println($k) }' "$CASE_DIR/libnodbg.so" 2>nodbg.err
    not $STAP -p2 -e 'probe process(@1).function("ulib_step") { println($ulib_nosuch) }' "$L" 2>novar.err
}

guest() {
    local run
    staprun -c "$CASE_DIR/ulibmain 3" t_ulpath.ko >path.out
    staprun -c "$CASE_DIR/ulibmain 3" t_ulpath.ko >path2.out
    staprun -c "$CASE_DIR/o2/ulibmain 3" t_ulo2.ko >o2.out
    staprun t_ulall.ko >all.out 2>all.err &
    run=$!
    for i in $(seq 600); do file_has all.out '^armed' && break; nap 0.1; done
    ./ulibmain 2 >/dev/null
    ./ulibcopy 3 >/dev/null
    ./ulibmain 1 >/dev/null
    wait $run
    staprun -c "$CASE_DIR/ulibsep 2" t_ulsep.ko >sep.out
    staprun -c "$CASE_DIR/ulibmain 3" t_ulexe.ko >exe.out
    staprun -c "$CASE_DIR/ulibmain 4" t_ulmalloc.ko >malloc.out 2>malloc.err
    staprun -c "$CASE_DIR/throw 7" t_ulthrow.ko >throw.out 2>throw.err
}

check() {
    local expect k total=0
    expect=$(for k in 1 2 3; do
        total=$((total + k * k))
        printf 'step %d calls %d counter %d\nstep= %d %d %d total %d counter %d\n' $k $((k - 1)) $((k - 1)) \
            $((k * k + k)) $k $((k - 1)) $total $k
    done; echo 'done 3 ulib-state table 1 4 9 0')
    for f in path.out path2.out; do
        diff <(echo "$expect") <(grep -v '^ulibmain done' $f)
    done
    # sum = 100 and i = 0 at the entry (constants of the location lists), after 3 steps: 3 calls, 1+4+9
    diff <(printf 'o2 step= %d\n' 2 6 12; printf 'sum 100 i 0 n 8 calls 3 cast 3 14 var 3\nlocals sum=0x64 i=0x0\n') \
        <(grep -v '^vars\|^ulibmain done' o2.out)
    grep -qx 'vars s=0x[0-9a-f]* n=0x8 sum=0x64 i=0x0' o2.out
    diff <(printf 'sep 1 0 0\nsep 2 1 1\n') <(grep -v '^ulibmain done' sep.out)
    diff <(printf 'round %d %d lib %d\nround= %d %d\n' 1 0 0 2 1 2 1 1 4 2 3 2 2 6 3) <(grep -v '^ulibmain done' exe.out)
    grep -qx 'steps 6 pids 3 ulibmain 3 ulibcopy 3 finish 3' all.out
    only_skip_warnings all.err
    diff <(printf 'malloc %d\n' 70001 70002 70003 70004) <(grep -v '^ulibmain done' malloc.out)
    only_skip_warnings malloc.err
    diff <(echo 'throw 7 7 catch 7 7') <(grep -v '^throw done' throw.out)
    only_skip_warnings throw.err
    grep -qx "process(\"$CASE_DIR/libulib.so\").function(\"ulib_step@$TOP/tests/uprobe/ulib/libulib.c:15\") \$k:int \$square:int \$slot:int" list.out
    [[ $(wc -l <list.out) == 4 ]]
    grep -q '^process("/usr/lib/x86_64-linux-gnu/libc.so.6").function("__libc_malloc@.*malloc.c:[0-9]*") $bytes:size_t' listc.out
    grep -q "library(\"libnosuch-ulib.so.9\"): no such library" nolib.err
    grep -q "no DWARF.*$CASE_DIR/libnodbg.so" nodbg.err
    grep -q "no variable 'ulib_nosuch' is visible in ulib_step" novar.err
}
