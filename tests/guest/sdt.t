# sdt: SDT markers: process("PATH").mark("NAME") and .provider("P").mark("NAME") on tests/sdt/sdtprog.c (markers from <sys/sdt.h>, one with a semaphore): exact hit counts, $argN of several sizes and signs, a constant, a string through user_string, $$name/$$provider/$$parms, the semaphore seen set only while armed, -l; and Debian's python3.11 markers (audit events counted by name, gc__start's generation from a stack operand)
# Used by tests/run (issue 17, SDT slice): translator/providers/sdt.c, runtime/probes/sdt.c, runtime/core/sdt.h, the semaphore through uprobes.c's ref_ctr_offset.

timeout_s=400

PY=/usr/bin/python3.11

build() {
    gcc -Wall -O2 -o sdtprog "$TOP/tests/sdt/sdtprog.c" "$TOP/tests/sdt/sdtsem.c"
    # unoptimized: the operands are memory on the stack (-4@-8(%rbp)) instead of registers
    gcc -Wall -O0 -o sdtprog-O0 "$TOP/tests/sdt/sdtprog.c" "$TOP/tests/sdt/sdtsem.c"
    P=$CASE_DIR/sdtprog
    # every argument of every marker of `sdtprog 3`; counted is reached only when its semaphore is set
    local vals='
probe process(@1).mark("values") {
  if (pid() == target())
    printf("values %d %d %d %d %d %s %s %s\n", $arg1, $arg2, $arg3, $arg4, $arg5, user_string($arg6), $$name, $$provider)
}
probe process(@1).provider("sdtprog").mark("counted") {
  if (pid() == target())
    printf("counted %d %s %s\n", $arg1, user_string($arg2), $$parms)
}'
    $STAP -p4 -m t_sdtval -e "$vals" "$P" >/dev/null
    $STAP -p4 -m t_sdtval0 -e "$vals" "$P-O0" >/dev/null
    # function and marker probes in one module (the two families share runtime/probes/uprobes.c)
    gcc -g -O0 -o uprog "$TOP/tests/uprobe/uprog.c"
    $STAP -p4 -m t_sdtmix -e 'probe process(@1).function("add") { println($a) }
probe process(@2).mark("done") { println($$name) }' "$CASE_DIR/uprog" "$P" >/dev/null
    # hit counts per marker, through a wildcard and a provider wildcard
    $STAP -p4 -m t_sdtcount -e '
global n
probe process(@1).provider("sdt*").mark("*") { if (pid() == target()) n[$$name]++ }
probe end { foreach (k+ in n) printf("%s %d\n", k, n[k]) }' "$P" >/dev/null
    # only the marker without a semaphore: the program sees the semaphore clear
    $STAP -p4 -m t_sdtnosem -e '
global n
probe process(@1).mark("values") { if (pid() == target()) n++ }
probe end { printf("values %d\n", n) }' "$P" >/dev/null
    # Python: its audit marker (arg1: the event's name) and gc__start (arg1: the generation, a memory
    # operand on the stack), between two audit events that bracket the script's own work. (Its
    # function__entry marker is reached only while the eval loop traces, i.e. while the line marker
    # is armed too: tapset/python.stp does that, guest/python-tapset counts calls with it; here it is
    # only listed.)
    cat >work.py <<'PYEOF'
import gc, sys
gc.disable()
sys.audit("sdt.begin")
for i in range(3):
    gc.collect(0)
for i in range(2):
    gc.collect(1)
for i in range(7):
    sys.audit("sdt.test", i)
sys.audit("sdt.end")
PYEOF
    if [[ -x $PY ]] && readelf -n $PY | grep -q 'Name: gc__start'; then
        $STAP -p4 -m t_sdtpy -e '
global inwin, ev, gens
probe process(@1).mark("audit") {
  if (pid() == target()) {
    e = user_string($arg1)
    if (e == "sdt.begin") inwin = 1
    else if (e == "sdt.end") inwin = 0
    else if (e == "sdt.test" && inwin) ev++
  }
}
probe process(@1).provider("python").mark("gc__start") { if (pid() == target() && inwin) gens[$arg1]++ }
probe end { printf("audit sdt.test %d\n", ev); foreach (g+ in gens) printf("gc %d %d\n", g, gens[g]) }' $PY >/dev/null
        $STAP -L "process(\"$PY\").mark(\"function__entry\")" >pylist.out
        # a '-' in a name stands for '__', as in the dtrace-style names of Python's documentation
        $STAP -l "process(\"$PY\").mark(\"gc-start\")" >pydash.out
    fi
    # the translator: -l lists the markers, errors
    $STAP -l "process(\"$P\").mark(\"*\")" >list.out
    $STAP -L "process(\"$P\").mark(\"counted\")" >listvars.out
    not $STAP -p2 -e 'probe process(@1).mark("no_such_marker") {}' "$P" 2>nomark.err
    not $STAP -p2 -e 'probe process(@1).mark("done") { println($arg1) }' "$P" 2>noarg.err
}

guest() {
    local i
    ./sdtprog 2 >before.prog
    for i in 1 2; do
        staprun -c "$CASE_DIR/sdtprog 3" t_sdtval.ko >val$i.out 2>val$i.err
    done
    staprun -c "$CASE_DIR/sdtprog-O0 3" t_sdtval0.ko >val3.out 2>val3.err
    staprun -c "$CASE_DIR/sdtprog 4" t_sdtcount.ko >count.out 2>count.err
    staprun -c "$CASE_DIR/sdtprog 2" t_sdtnosem.ko >nosem.out 2>nosem.err
    # unloaded: the semaphore is back to zero
    ./sdtprog 2 >after.prog
    if [[ -e t_sdtpy.ko ]]; then
        for i in 1 2; do
            staprun -c "$PY $CASE_DIR/work.py" t_sdtpy.ko >py$i.out 2>py$i.err
        done
    fi
}

check() {
    local i expect
    expect=$(for i in 1 2 3; do
        printf 'values %d %d %d %d 4000000000 word-%d values sdtprog\n' $((-i)) $((1000 * i)) $((-100000 * i)) \
            $((0x100000000 * i + 7)) $i
    done)
    for i in 1 2 3; do
        diff <(echo "$expect") <(grep '^values' val$i.out)
        # the semaphore: set in every round while counted is armed, and counted fired each time
        [[ $(grep -c '^round [123] semaphore set$' val$i.out) == 3 ]]
        ! grep -q 'semaphore clear' val$i.out
        [[ $(grep -c '^counted' val$i.out) == 3 ]]
        grep -Eqx 'counted 1 word-1 arg1=0x1 arg2=0x[0-9a-f]+' val$i.out
        grep -Eqx 'counted 2 word-2 arg1=0x2 arg2=0x[0-9a-f]+' val$i.out
        grep -Eqx 'counted 3 word-3 arg1=0x3 arg2=0x[0-9a-f]+' val$i.out
        only_skip_warnings val$i.err
    done
    [[ $(grep -v '^round' count.out) == $'counted 4\ndone 1\nvalues 4' ]]
    [[ $(grep -c '^round [1-4] semaphore set$' count.out) == 4 ]]
    only_skip_warnings count.err
    # without a probe on its marker the semaphore stays clear, armed or not
    grep -qx 'values 2' nosem.out
    [[ $(grep -c 'semaphore clear$' nosem.out) == 2 ]]
    [[ $(cat before.prog) == $'round 1 semaphore clear\nround 2 semaphore clear' ]]
    [[ $(cat after.prog) == $'round 1 semaphore clear\nround 2 semaphore clear' ]]
    if [[ -e t_sdtpy.ko ]]; then
        for i in 1 2; do
            [[ $(cat py$i.out) == $'audit sdt.test 7\ngc 0 3\ngc 1 2' ]]
            only_skip_warnings py$i.err
        done
    else
        echo "sdt: $PY has no SDT markers here: its case skipped" >&2
    fi
    [[ ! -e t_sdtpy.ko ]] || [[ $(cat pydash.out) == "process(\"$PY\").provider(\"python\").mark(\"gc__start\")" ]]
    [[ ! -e t_sdtpy.ko ]] || grep -qx "process(\"$PY\").provider(\"python\").mark(\"function__entry\") \$\$name:string \$\$provider:string \$\$parms:string \$arg1:long \$arg2:long \$arg3:long" pylist.out
    [[ $(cat list.out) == "process(\"$CASE_DIR/sdtprog\").provider(\"sdtprog\").mark(\"counted\")
process(\"$CASE_DIR/sdtprog\").provider(\"sdtprog\").mark(\"done\")
process(\"$CASE_DIR/sdtprog\").provider(\"sdtprog\").mark(\"values\")" ]]
    grep -qx "process(\"$CASE_DIR/sdtprog\").provider(\"sdtprog\").mark(\"counted\") \$\$name:string \$\$provider:string \$\$parms:string \$arg1:long \$arg2:long" listvars.out
    grep -q "no SDT marker 'no_such_marker' in $CASE_DIR/sdtprog" nomark.err
    grep -q "context variable '\$arg1' is not available" noarg.err
}
