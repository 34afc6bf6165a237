# a kprobe on a symbol the kernel does not have fails at load with a one-line error naming it, exit 1
# Used by tests/run (issue 2): kprobe registration errors reach the user; nothing stays loaded.

build() {
    # this host has no symbol table for the guest kernel, so the check happens at load time
    $STAP -p4 -m t_nosym -e 'probe kprobe.function("no_such_function_xyz") { println("never") }' >/dev/null
}

guest() {
    local rc=0
    staprun t_nosym.ko || rc=$?
    if grep -q '^t_nosym ' /proc/modules; then
        echo "t_nosym is still loaded" >&2
        return 3
    fi
    echo $rc >staprun.rc
}

check() {
    [[ $(cat staprun.rc) == 1 ]]
    [[ ! -s out ]]
    grep -q "no_such_function_xyz" err
    [[ $(grep -c . err) == 1 ]]
}
