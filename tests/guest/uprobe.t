# uprobe: process("PATH").function(...) probes on tests/uprobe/uprog.c (-O0 and -O2): exact hit counts, arguments, return values, $param and @entry in .return, a string and a struct member, $$parms, wildcards, -L, probes armed before the program starts, -c and -x scoping to target() and its descendants, a hot probe disarmed under load, a user read fault as a script error
# Used by tests/run (issue 17, first slice): translator/providers/uprobe.c, runtime/probes/uprobes.c, user reads of target variables.

timeout_s=300

build() {
    gcc -g -O0 -o uprog "$TOP/tests/uprobe/uprog.c"
    P=$CASE_DIR/uprog
    # values: every argument and return of `uprog 3`, in call order; after the prologue of the
    # unoptimized build (arguments on the stack), at the entry of the optimized one (registers)
    gcc -g -O2 -o uprog-O2 "$TOP/tests/uprobe/uprog.c"
    local vals='
probe process(@1).function("add") { printf("add %d %d %s\n", $a, $b, $$parms) }
probe process(@1).function("add").return { printf("add= %d %d+%d %d\n", $return, $a, $b, @entry($a * 2)) }
probe process(@1).function("scale").call { printf("scale %d %d\n", $x, $k) }
probe process(@1).function("scale").return { printf("scale= %d %s\n", $return, $$return) }
probe process(@1).function("greet") { printf("greet %s %d\n", user_string($name), $n) }
probe process(@1).function("greet").return { printf("greet= %d\n", $return) }
probe process(@1).function("norm1") { printf("norm1 %d %d\n", $p->x, $p->y) }
probe process(@1).function("norm1").return { printf("norm1= %d\n", $return) }'
    $STAP -p4 -m t_upval -e "$vals" "$P" >/dev/null
    $STAP -p4 -m t_upvalo2 -e "$vals" "$P-O2" >/dev/null
    # wildcards: hits per function, at entry and at return
    $STAP -p4 -m t_upwild -e '
global ent, ret
probe process(@1).function("*") { ent[ppfunc()]++ }
probe process(@1).function("*").return { ret[ppfunc()]++ }
probe end { foreach (f+ in ent) printf("%s %d %d\n", f, ent[f], ret[f]) }' "$P" >/dev/null
    # armed before the programs start, no target: every process running the file counts; the
    # third call of finish() ends the session
    $STAP -p4 -m t_upall -e '
global adds, pids, fin
probe begin { println("armed") }
probe process(@1).function("add") { adds++; pids[pid()]++ }
probe process(@1).function("finish") { if (++fin == 3) exit() }
probe end { n = 0; foreach (p in pids) n++; printf("adds %d pids %d finish %d\n", adds, n, fin) }' "$P" >/dev/null
    # -c: only target() and its descendants count (the target is runner.sh, which runs uprog as a
    # child); a copy started outside, running while the probes are armed, does not
    $STAP -p4 -m t_upscope -e '
global adds, pids, tgt
probe process(@1).function("add") { adds++; pids[pid()]++; if (ppid() == target()) tgt++ }
probe end { n = 0; foreach (p in pids) n++; printf("adds %d pids %d child-of-target %d\n", adds, n, tgt) }' "$P" >/dev/null
    cat >runner.sh <<EOF
#!/bin/sh
# the -c target: lets the outside copy run (go), waits for it to finish (done), then runs uprog 5
cd "$CASE_DIR"
touch go
while [ ! -e done ]; do sleep 0.05; done
./uprog 5 >/dev/null
EOF
    chmod +x runner.sh
    # a hot probe disarmed while two copies of the program call it on both CPUs
    # (statistics read only by @count take no lock: no hit is skipped for lock contention)
    $STAP -p4 -m t_uphot -DMAXSKIPPED=1000000 -e '
global n, r, bad
probe process(@1).function("add") { n <<< 1 }
probe process(@1).function("add").return { r <<< 1; if ($return != $a + $b) bad <<< 1 }
probe timer.ms(300) { if (@count(n) && @count(r)) exit() }
probe end { printf("hot %s %s bad %d\n", @count(n) ? "yes" : "no", @count(r) ? "yes" : "no", @count(bad)) }' "$P-O2" >/dev/null
    # -x PID: only that process counts, not the other copy running the same file
    $STAP -p4 -m t_upx -DMAXSKIPPED=1000000 -e '
global n, other
probe process(@1).function("add") { if (pid() == target()) n <<< 1; else other <<< 1 }
probe timer.ms(300) { if (@count(n)) exit() }
probe end { printf("x %s other %d\n", @count(n) ? "yes" : "no", @count(other)) }' "$P-O2" >/dev/null
    # a binary rebuilt after translation is refused at start (its build id differs)
    cp uprog uprog-stale
    $STAP -p4 -m t_upstale -e 'probe process(@1).function("add") { println($a) }' "$P-stale" >/dev/null
    cp uprog-O2 uprog-stale
    # a user read fault is a located script error, never an oops
    $STAP -p4 -m t_upfault -e '
probe process(@1).function("add") { printf("%s\n", user_string($a)) }' "$P" >/dev/null
    # the translator: -L lists functions and their parameters; PATH lookup; errors
    PATH=$CASE_DIR:$PATH $STAP -L 'process("uprog").function("*")' >list.out
    PATH=$CASE_DIR:$PATH $STAP -L 'process("uprog").function("greet").return' >listret.out
    not $STAP -p2 -e 'probe process("uprog-no-such-program").function("add") {}' 2>nofile.err
    not $STAP -p2 -e 'probe process(@1).function("no_such_function") {}' "$P" 2>nofunc.err
    not $STAP -p2 -e 'probe process(@1).function("add").label("x") {}' "$P" 2>stmt.err
}

guest() {
    local i run run2
    staprun -c "$CASE_DIR/uprog 3" t_upval.ko >val.out
    staprun -c "$CASE_DIR/uprog 3" t_upval.ko >val2.out
    staprun -c "$CASE_DIR/uprog-O2 3" t_upvalo2.ko >valo2.out
    staprun -c "$CASE_DIR/uprog 4" t_upwild.ko >wild.out
    # armed first, then three runs of uprog
    staprun t_upall.ko >all.out 2>all.err &
    run=$!
    for i in $(seq 600); do file_has all.out '^armed' && break; nap 0.1; done
    ./uprog 2 >/dev/null
    ./uprog 3 >/dev/null
    ./uprog 1 >/dev/null
    wait $run
    # scoping, twice
    for i in 1 2; do
        rm -f go done
        ./uprog 3 go done >/dev/null &
        run=$!
        staprun -c "$CASE_DIR/runner.sh" t_upscope.ko >scope$i.out 2>scope$i.err
        wait $run
    done
    # the hot probe, armed and disarmed five times under load; the programs then end normally
    # (a breakpoint left behind would kill them with SIGTRAP)
    rm -f stop
    ./uprog-O2 -1 - stop >hot1.prog &
    run=$!
    ./uprog-O2 -1 - stop >hot2.prog &
    run2=$!
    for i in 1 2 3 4 5; do staprun t_uphot.ko >>hot.out 2>>hot.err; done
    staprun -x $run t_upx.ko >x.out 2>x.err
    staprun -x $run2 t_upx.ko >>x.out 2>>x.err
    touch stop
    wait $run
    wait $run2
    not staprun -c "$CASE_DIR/uprog 1" t_upfault.ko >fault.out 2>fault.err
    not staprun t_upstale.ko >stale.out 2>stale.err
    # the module is gone and the kernel is fine: a last run works
    staprun -c "$CASE_DIR/uprog 3" t_upval.ko >again.out
}

check() {
    local i expect
    expect=$(for i in 1 2 3; do
        printf 'add %d %d a=0x%x b=0x%x\nadd= %d %d+%d %d\n' $i $((100 * i)) $i $((100 * i)) $((101 * i)) \
            $i $((100 * i)) $((2 * i))
        printf 'scale %d -3\nscale= %d return=0x%x\n' $i $((-3 * i)) $(((-3 * i) & 0xffffffffffffffff))
        printf 'greet hello-uprobe %d\ngreet= %d\n' $i $((12 + i))
        printf 'norm1 %d %d\nnorm1= %d\n' $i $((-2 * i)) $((3 * i))
    done)
    for f in val.out val2.out valo2.out again.out; do
        diff <(echo "$expect") <(grep -v '^uprog done' $f)
    done
    # each function entered and left as often as it is called; main returns after the session ends
    grep -qx 'add 4 4' wild.out
    grep -qx 'scale 4 4' wild.out
    grep -qx 'greet 4 4' wild.out
    grep -qx 'norm1 4 4' wild.out
    grep -qx 'finish 1 1' wild.out
    grep -qx 'main 1 [01]' wild.out
    [[ $(grep -vc '^uprog done' wild.out) == 6 ]]
    grep -qx 'adds 6 pids 3 finish 3' all.out
    only_skip_warnings all.err
    for i in 1 2; do
        grep -qx 'adds 5 pids 1 child-of-target 5' scope$i.out
        only_skip_warnings scope$i.err
    done
    [[ $(grep -cx 'hot yes yes bad 0' hot.out) == 5 && $(wc -l <hot.out) == 5 ]]
    only_skip_warnings hot.err
    [[ $(cat x.out) == $'x yes other 0\nx yes other 0' ]]
    only_skip_warnings x.err
    grep -q '^uprog rounds [1-9]' hot1.prog
    grep -q '^uprog rounds [1-9]' hot2.prog
    grep -q "the file changed since the script was translated (its build id differs) (-8): cannot probe $CASE_DIR/uprog-stale" stale.err
    grep -q "ERROR: user string copy fault at 0x1 near identifier 'user_string' at <input>:2:" fault.err
    # -L: each function with its parameters; .return lists $return
    grep -qx "process(\"$CASE_DIR/uprog\").function(\"add@$TOP/tests/uprobe/uprog.c:14\") \$a:int \$b:int" list.out
    grep -qx "process(\"$CASE_DIR/uprog\").function(\"greet@$TOP/tests/uprobe/uprog.c:27\") \$name:char const\* \$n:int" list.out
    grep -q 'function("norm1@.*") $p:struct point const\*$' list.out
    [[ $(wc -l <list.out) == 6 ]]
    grep -qx "process(\"$CASE_DIR/uprog\").function(\"greet@$TOP/tests/uprobe/uprog.c:27\").return \$return:int \$name:char const\* \$n:int" listret.out
    grep -q "no executable 'uprog-no-such-program' in \$PATH" nofile.err
    grep -q "no function 'no_such_function' in the debuginfo of $CASE_DIR/uprog" nofunc.err
    grep -q "'add' has no label 'x' with code in $CASE_DIR/uprog" stmt.err   # (labels: guest/uprobe-label)
}
