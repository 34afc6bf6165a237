# uprobe-points: the other process probe-point forms on tests/uprobe/upoints.c: .statement("FUNC@FILE:LINE") reading locals, .statement(ADDR).absolute, .function(...).inline/.call/bare counts on an always-inline function, .plt("NAME")/.plt("*") with $$name, process(PID) .function/.plt/.mark firing only in that process, .function on binaries without DWARF (symbol table), -L listings
# Used by tests/run (issue 17): translator/providers/uprobe.c, uprobe_elf.c, dwarfpoint.c, runtime/probes/uprobes.c (process(PID) filter).

timeout_s=400

build() {
    local src=$TOP/tests/uprobe/upoints.c line addr pid i
    gcc -g -O0 -rdynamic -o upoints "$src"
    strip -g -o upoints-nodebug upoints       # .symtab kept
    strip -o upoints-stripped upoints         # .dynsym only (-rdynamic exports the functions)
    P=$CASE_DIR/upoints
    line=$(grep -n 'LINE:work-return' "$src" | cut -d: -f1)
    echo "$line" >line
    # a statement at a line: the locals there (acc is n * 12 at work's return line)
    $STAP -p4 -m t_upt_stmt -e '
probe process(@1).statement(@2) { printf("stmt %d %d %s\n", $n, $acc, pp()) }' "$P" "work@upoints.c:$line" >/dev/null
    # an absolute address: other()'s entry, as nm prints it
    addr=$(printf %x $((16#$(nm upoints | awk '$3 == "other" { print $1 }'))))
    echo "$addr" >addr
    $STAP -p4 -m t_upt_abs -e '
global hits, name
probe process(@1).statement(0x'"$addr"').absolute { hits++; name = pp() }
probe end { printf("abs %d %s\n", hits, name) }' "$P" >/dev/null
    # inline instances, out-of-line calls, both, returns (twice: inlined into work and other,
    # called through a pointer from main)
    $STAP -p4 -m t_upt_inl -e '
global inl, call, bare, ret, vals
probe process(@1).function("twice").inline { inl++ }
probe process(@1).function("twice").call { call++; vals .= sprintf(" %d", $v) }
probe process(@1).function("twice") { bare++ }
probe process(@1).function("twice").return { ret++ }
probe end { printf("inline %d call %d bare %d return %d vals%s\n", inl, call, bare, ret, vals) }' "$P" >/dev/null
    # PLT stubs: every entry with $$name, one by name, one .return
    $STAP -p4 -m t_upt_plt -e '
global n, gp, gpr, name
probe process(@1).plt("*") { n[$$name]++ }
probe process(@1).plt("getpid") { gp++; name = pp() }
probe process(@1).plt("str*").return { gpr[$$name]++ }
probe end {
    foreach (k+ in n) printf("plt %s %d\n", k, n[k])
    foreach (k+ in gpr) printf("ret %s %d\n", k, gpr[k])
    printf("getpid %d %s\n", gp, name)
}' "$P" >/dev/null
    # no DWARF: the symbol table (.symtab of upoints-nodebug, .dynsym of upoints-stripped)
    $STAP -p4 -m t_upt_sym -e '
global f, r
probe process(@1).function("*") { f[ppfunc()]++ }
probe process(@1).function("work").return { r++ }
probe process(@2).function("twice") { f["twice-static"]++ }
probe end { foreach (k+ in f) printf("sym %s %d\n", k, f[k]); printf("sym work.return %d\n", r) }' \
        "$CASE_DIR/upoints-stripped" "$CASE_DIR/upoints-nodebug" >/dev/null
    # process(PID): resolved to the executable of a process running now (here, on the host); in
    # the guest a process is given that pid (ns_last_pid) and only it counts
    mkfifo hold
    ./upoints 3 wait <hold >/dev/null &
    pid=$!
    exec 3>hold
    echo "$pid" >pid
    # until the child has opened the fifo and exec'd the program
    for i in $(seq 200); do [[ $(readlink /proc/$pid/exe) == "$P" ]] && break; nap 0.05; done
    $STAP -p4 -m t_upt_pid -e '
global work, gp, pids, finishes, rounds
probe begin { println("armed") }
probe process('"$pid"').function("work") { work++; pids[pid()]++ }
probe process('"$pid"').plt("getpid") { gp++; pids[pid()]++ }
probe process('"$pid"').function("finish") { finishes++; pids[pid()]++; exit() }
probe process('"$pid"').mark("round") { rounds += $arg1; pids[pid()]++ }
probe end {
    foreach (p in pids) printf("pid %d %d\n", p, pids[p])
    printf("work %d getpid %d finish %d rounds %d\n", work, gp, finishes, rounds)
}' \
        >/dev/null
    $STAP -L "process($pid).function(\"w*\")" >pidlist.out
    echo go >&3
    exec 3>&-
    wait "$pid"
    not $STAP -p2 -e "probe process($pid).function(\"work\") {}" 2>nopid.err
    # listings
    $STAP -L "process(\"$P\").statement(\"work@upoints.c:$line\")" >stmtlist.out
    $STAP -L "process(\"$P\").plt(\"*\")" >pltlist.out
    $STAP -L "process(\"$P\").function(\"twice\").inline" >inllist.out
    $STAP -l "process(\"$CASE_DIR/upoints-stripped\").function(\"*\")" >symlist.out
}

guest() {
    local i pid got hold2 run
    staprun -c "$CASE_DIR/upoints 3" t_upt_stmt.ko >stmt.out 2>stmt.err
    staprun -c "$CASE_DIR/upoints 3" t_upt_abs.ko >abs.out 2>abs.err
    staprun -c "$CASE_DIR/upoints 3" t_upt_inl.ko >inl.out 2>inl.err
    staprun -c "$CASE_DIR/upoints 3" t_upt_plt.ko >plt.out 2>plt.err
    staprun -c "$CASE_DIR/upoints-stripped 3" t_upt_sym.ko >sym.out 2>sym.err
    staprun -c "$CASE_DIR/upoints-nodebug 2" t_upt_sym.ko >sym2.out 2>sym2.err
    # process(PID): a paused upoints given the pid the module was built for
    pid=$(cat pid)
    hold2=$(mktemp -d)/hold     # the guest's own /tmp: the shared CASE_DIR has no fifos
    mkfifo "$hold2"
    got=
    for i in $(seq 50); do
        echo $((pid - 1)) >/proc/sys/kernel/ns_last_pid
        ./upoints 3 wait <"$hold2" >pid-prog.out &
        got=$!
        [[ $got == "$pid" ]] && break
        kill $got
        wait $got || true
    done
    [[ $got == "$pid" ]]
    staprun t_upt_pid.ko >pid.out 2>pid.err &
    run=$!
    for i in $(seq 600); do file_has pid.out '^armed' && break; nap 0.1; done
    # another process running the same file, while armed: not counted
    ./upoints 4 >/dev/null
    echo go >"$hold2"
    wait $got
    wait $run
}

check() {
    local i line addr pid expect src=$TOP/tests/uprobe/upoints.c work twice
    line=$(cat line)
    work=$(grep -n '^__attribute__((noipa)) int work(int n)$' "$src" | cut -d: -f1)
    twice=$(grep -n 'int twice(int v)$' "$src" | cut -d: -f1)
    addr=$(cat addr)
    pid=$(cat pid)
    expect=$(for i in 1 2 3; do
        echo "stmt $i $((12 * i)) process(\"$CASE_DIR/upoints\").statement(\"work@$TOP/tests/uprobe/upoints.c:$line\")"
    done)
    diff <(echo "$expect") <(grep -v '^upoints done' stmt.out)
    [[ $(grep -v '^upoints done' abs.out) == "abs 3 process(\"$CASE_DIR/upoints\").statement(0x$addr).absolute" ]]
    [[ $(grep -v '^upoints done' inl.out) == 'inline 6 call 3 bare 9 return 3 vals 1 2 3' ]]
    diff <(printf '%s\n' 'plt atoi 1' 'plt fflush 1' 'plt getpid 3' 'plt printf 1' 'plt strlen 3' 'ret strlen 3' \
        "getpid 3 process(\"$CASE_DIR/upoints\").plt(\"getpid\")") <(grep -v '^upoints done' plt.out)
    diff <(printf '%s\n' 'sym _start 1' 'sym finish 1' 'sym main 1' 'sym measure 3' 'sym other 3' 'sym work 3' \
        'sym work.return 3') <(grep -v '^upoints done' sym.out)
    # the nodebug copy is not probed by the "*" of the stripped one; its twice comes from .symtab
    diff <(printf '%s\n' 'sym twice-static 2' 'sym work.return 0') <(grep -v '^upoints done' sym2.out)
    diff <(printf "%s\n" armed "pid $pid 10" "work 3 getpid 3 finish 1 rounds 6") pid.out
    grep -qx 'upoints done 3' pid-prog.out
    for f in stmt abs inl plt sym sym2 pid; do only_skip_warnings $f.err; done
    # the translator: listings and the pid's errors
    grep -qx "process($pid).function(\"work@$TOP/tests/uprobe/upoints.c:$work\") \$n:int \$acc:int" pidlist.out
    grep -q "process($pid): no such process" nopid.err
    [[ $(cat stmtlist.out) == "process(\"$CASE_DIR/upoints\").statement(\"work@$TOP/tests/uprobe/upoints.c:$line\") \$n:int \$acc:int" ]]
    grep -qx "process(\"$CASE_DIR/upoints\").plt(\"getpid\") \$\$name:string" pltlist.out
    [[ $(wc -l <pltlist.out) == 7 ]]
    [[ $(cat inllist.out) == "process(\"$CASE_DIR/upoints\").function(\"twice@$TOP/tests/uprobe/upoints.c:$twice\").inline \$v:int" ]]
    grep -qx "process(\"$CASE_DIR/upoints-stripped\").function(\"work\")" symlist.out
    [[ $(wc -l <symlist.out) == 6 ]]
}
