# kernel.trace in pass 2 against the guest kernel's DWARF: -l/-L as SystemTap prints them, the tracepoint catalog cache, refusals
# Used by tests/run (issue 14): translator/dwarf/dwtracepoints.c, providers/tracepoint.c, tracepoint arguments in dwarf/dwvars.c.

run() {
    source "$TOP/tests/lib/assert.sh"
    [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]] || { echo "no /usr/lib/debug/boot/vmlinux-$KVER (make deps)"; return 77; }
    export SYSTEMTAP_DIR=$PWD/stapdir
    rm -rf stapdir
    local R="-r $KVER"

    # -L: each argument with its C type, in the prototype's order; -l: one line per tracepoint
    expect_ok $R -L 'kernel.trace("sched:sched_switch")'
    [[ $(cat stdout) == 'kernel.trace("sched:sched_switch") $preempt:bool $prev:struct task_struct* $next:struct task_struct* $prev_state:unsigned int' ]] ||
        { echo "-L sched_switch:"; cat stdout; return 1; }
    expect_ok $R -L 'kernel.trace("raw_syscalls:sys_enter")'
    [[ $(cat stdout) == 'kernel.trace("raw_syscalls:sys_enter") $regs:struct pt_regs* $id:long int' ]] ||
        { echo "-L sys_enter:"; cat stdout; return 1; }
    # the name alone finds it in any system; wildcards in both parts
    expect_ok $R -l 'kernel.trace("sched_switch")'
    [[ $(cat stdout) == 'kernel.trace("sched:sched_switch")' ]] || { cat stdout; return 1; }
    expect_ok $R -l 'kernel.trace("block:block_rq_*")'
    grep -qx 'kernel.trace("block:block_rq_issue")' stdout && grep -qx 'kernel.trace("block:block_rq_complete")' stdout
    not grep -v '^kernel.trace("block:block_rq_' stdout
    expect_ok $R -l 'kernel.trace("*:sched_wak*")'
    [[ $(cat stdout) == $'kernel.trace("sched:sched_wake_idle_without_ipi")\nkernel.trace("sched:sched_wakeup")\nkernel.trace("sched:sched_wakeup_new")\nkernel.trace("sched:sched_waking")' ]] ||
        { echo "-l *:sched_wak*:"; cat stdout; return 1; }

    # the catalog was read from the DWARF once and saved; the next run loads it
    ls stapdir/cache/dwarf/*.tp >/dev/null
    "$STAP" $R -vv -p2 -e 'probe kernel.trace("sched:sched_switch") {}' >/dev/null 2>err
    grep -q '^Tracepoints of .*: [0-9]*, loaded from the cache' err || { echo "no cache hit:"; cat err; return 1; }
    # a damaged catalog is read again from the DWARF
    local f
    for f in stapdir/cache/dwarf/*.tp; do sed -i '2s/ [0-9a-f]* [0-9a-f]*$/ zz/' "$f"; done
    "$STAP" $R -vv -p2 -e 'probe kernel.trace("sched:sched_switch") {}' >/dev/null 2>err
    grep -q '^Tracepoints of .*: [0-9]*, read from the DWARF' err || { echo "damaged catalog used:"; cat err; return 1; }

    # the generated probe function takes the tracepoint's arguments; the table names it
    expect_ok $R -p3 -e 'probe kernel.trace("sched:sched_switch") { println($next->pid) }'
    grep -q '^static STP_TRACEPOINT_HIT_ATTRS void stp_tracepoint_hit_0(void \*data, unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)$' stdout
    grep -q '\.name = "sched_switch"' stdout
    grep -q '^MODULE_INFO(stap_kernel_build_id, ' stdout

    # refusals
    expect_error "<input>:1:20: semantic error" "no tracepoint 'sched:no_such_tp' in kernel $KVER" \
        $R -p2 -e 'probe kernel.trace("sched:no_such_tp") {}'
    expect_error "<input>:1:20: semantic error" "no tracepoint 'no_such_tp' in kernel $KVER" \
        $R -p2 -e 'probe kernel.trace("no_such_tp") {}'
    expect_error "<input>:1:20: semantic error" "'a:b:c' is not a tracepoint" \
        $R -p2 -e 'probe kernel.trace("a:b:c") {}'
    expect_error "<input>:1:14: semantic error" "tracepoint probes are written kernel.trace(\"SYSTEM:NAME\")" \
        $R -p2 -e 'probe kernel.trace(1) {}'
    expect_error "<input>:1:42: semantic error" "unknown probe point component 'return' after kernel.trace(...)" \
        $R -p2 -e 'probe kernel.trace("sched:sched_switch").return {}'
    expect_error "<input>:1:48: semantic error" \
        "tracepoint sched_switch has no argument 'nope' (its arguments: \$preempt \$prev \$next \$prev_state)" \
        $R -p2 -e 'probe kernel.trace("sched:sched_switch") { x = $nope }'
    # __data, the probe data of the prototype, is not an argument
    expect_error "<input>:1:48: semantic error" "tracepoint sched_switch has no argument '__data'" \
        $R -p2 -e 'probe kernel.trace("sched:sched_switch") { x = $__data }'
    expect_error "<input>:1:44: semantic error" "'\$prev' is a tracepoint argument, which cannot be written" \
        $R -g -p2 -e 'probe kernel.trace("sched:sched_switch") { $prev = 0 }'
    expect_error "<input>:1:48: semantic error" "\$return is only available in .return probes" \
        $R -p2 -e 'probe kernel.trace("sched:sched_switch") { x = $return }'
    # '?': a tracepoint the kernel lacks is left out; a wildcard matching nothing is an error
    expect_ok $R -p2 -e 'probe kernel.trace("sched:no_such_tp")?, kernel.trace("sched:sched_switch") {}'
    grep -qx 'kernel.trace("sched:sched_switch") .*' stdout
    expect_error "<input>:1:7: semantic error" "probe point 'kernel.trace(\"nosys_*:*\")' matches nothing" \
        $R -p2 -e 'probe kernel.trace("nosys_*:*") {}'
}
