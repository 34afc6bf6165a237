# kprobes the kernel refuses (no such symbol, blacklisted) fail with a one-line error naming them, exit 1
# Used by tests/run (issue 2): kprobe registration errors reach the user; nothing stays loaded.

build() {
    # kprobe_int3_handler exists but is on the kernel's kprobe blacklist: only registration refuses it
    $STAP -p4 -m t_refused -e 'probe kprobe.function("kprobe_int3_handler") { println("never") }' >/dev/null
    # a symbol the kernel lacks: refused in pass 2 when the translator has the kernel's symbol table
    # (kernel debuginfo installed), else at load time like the one above
    local rc=0
    $STAP -p4 -m t_nosym -e 'probe kprobe.function("no_such_function_xyz") { println("never") }' \
        >/dev/null 2>nosym-p4.err || rc=$?
    echo $rc >nosym-p4.rc
}

guest() {
    local rc=0
    staprun t_refused.ko || rc=$?
    echo $rc >staprun.rc
    if [[ -e t_nosym.ko ]]; then
        rc=0
        staprun t_nosym.ko 2>nosym.err || rc=$?
        echo $rc >nosym.rc
    fi
    not grep -q '^t_' /proc/modules
}

check() {
    [[ $(cat staprun.rc) == 1 ]]
    [[ ! -s out ]]
    grep -q "kprobe_int3_handler" err
    grep -q "does not allow probing" err
    [[ $(grep -c . err) == 1 ]]
    if [[ $(cat nosym-p4.rc) == 0 ]]; then
        [[ $(cat nosym.rc) == 1 ]]
        grep -q "no_such_function_xyz" nosym.err
        [[ $(grep -c . nosym.err) == 1 ]]
    else
        [[ $(cat nosym-p4.rc) == 1 ]]
        grep -q "kernel symbol 'no_such_function_xyz' not found" nosym-p4.err
    fi
}
