# guru mode: `$return = v` in a kernel .return probe changes what the caller gets (SystemTap's -g)
# Used by tests/run: the target's getppid() is answered 4242, other processes see the truth.

build() {
    $STAP -g -p4 -m t_retw -e '
probe kernel.function("__do_sys_getppid").return {
    if (pid() != target()) next
    was = $return
    $return = 4242
    printf("was %d, now %d\n", was > 0, $return)
}' >/dev/null
}

guest() {
    # dash reads getppid() once at start for $PPID
    staprun -c 'echo PPID=$PPID' t_retw.ko
    echo "after: $(sh -c 'echo $PPID')" >&2
    not grep -q '^t_retw ' /proc/modules
}

check() {
    [[ $(cat rc) == 0 ]]
    grep -qx 'PPID=4242' out
    grep -qx 'was 1, now 4242' out
    # the probe is gone with the run: the shell's next child sees its real parent
    grep -q '^after: [0-9]' err && ! grep -q '^after: 4242' err
}
