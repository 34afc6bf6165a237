# seed corpus, scheduler/kprocess tapset aliases: 049 (process life cycle) and 050 (sleep/wakeup) as their INDEX.md rows describe; 014 and 022 translate
# Used by tests/run (issue 15). The corpus lives beside the repository (SEED_CORPUS, default TOP/../shared/seed-scripts);
# without it, or without the kernel's DWARF, the case is skipped.

timeout_s=120
btf_rerun=1

build() {
    seed_need 014 022 049 050
    $STAP -p4 -m seed_049 "$(seed_file 049)" >/dev/null
    $STAP -p4 -m seed_050 "$(seed_file 050)" >/dev/null
    # 014: empty bodies on vfs_*, a timer and scheduler.cpu_on; 022: syscall.open with task_parent and pid2task
    # typed from BTF: 014's scheduler.cpu_on needs finish_task_switch, which BTF lacks on Debian's kernels
    # (a .isra clone): refused, naming the -dbg package
    if [[ -n ${FROM_BTF:-} ]] && ! $STAP -p2 -e 'probe scheduler.cpu_on { }' >/dev/null 2>cpu_on.err; then
        not $STAP -p4 -m seed_014 "$(seed_file 014)" 2>014.err
        grep -q "no function 'finish_task_switch' in the kernel's BTF.*(linux-image-$KVER-dbg)" 014.err
    else
        $STAP -p4 -m seed_014 "$(seed_file 014)" >/dev/null
    fi
    $STAP -p4 -m seed_022 "$(seed_file 022)" >/dev/null
}

guest() {
    # 049's workload: a shell running uname (a fork, an exec, an exit, a wait)
    staprun -c "bash -c 'uname >/dev/null; echo bash \$\$'" seed_049.ko >049.out 2>049.err
    staprun -c "sh -c 'echo e | cat >/dev/null; sleep 0.2'" seed_050.ko >050.out 2>050.err
}

check() {
    [[ $(cat rc) == 0 ]]
    local b u
    b=$(sed -n 's/^bash \([0-9]*\)$/\1/p' 049.out)
    [[ -n $b ]]
    # "PID[EXEC]/PPID[PEXEC] PROBE" lines, "\tPID: a -> b", "\tfilename: ...", "\treturn code: N", nothing else
    not grep -vE '^ *[0-9]+\[ *[^]]*\]/ *[0-9]+\[ *[^]]*\] [a-z_0-9.]+$|^	PID: [0-9]+ -> [0-9]+$|^	filename: .*$|^	return code: -?[0-9]+$|^bash [0-9]+$' 049.out
    u=$(sed -n "s/^	PID: $b -> \([0-9]*\)$/\1/p" 049.out | head -n 1)
    [[ -n $u ]]
    grep -Eq "^ *$b\[ *bash\]/ *[0-9]+\[ *[^]]*\] kprocess.create$" 049.out
    grep -Eq "^ *$b\[ *bash\]/ *[0-9]+\[ *[^]]*\] scheduler.process_fork$" 049.out
    grep -Eq "^ *$b\[ *bash\]/ *[0-9]+\[ *[^]]*\] scheduler.wakeup_new$" 049.out
    grep -Eq "^ *$u\[ *bash\]/ *$b\[ *bash\] kprocess.start$" 049.out
    grep -Eq "^ *$u\[ *bash\]/ *$b\[ *bash\] kprocess.exec$" 049.out
    grep -Eq "^ *$u\[ *uname\]/ *$b\[ *bash\] kprocess.exec_complete$" 049.out
    grep -Eq "^ *$u\[ *uname\]/ *$b\[ *bash\] kprocess.exit$" 049.out
    grep -Eq "^ *$u\[ *uname\]/ *$b\[ *bash\] scheduler.process_exit$" 049.out
    grep -Eq "^ *$b\[ *bash\]/ *[0-9]+\[ *[^]]*\] scheduler.process_wait$" 049.out
    grep -Eq "^ *$b\[ *bash\]/ *[0-9]+\[ *[^]]*\] kprocess.release$" 049.out
    grep -Eq '^	filename: "/(usr/)?bin/uname"$' 049.out
    grep -Eq '^	return code: 0$' 049.out
    # "EXEC[PID] sleeping" and "EXEC[PID] wakes up EXEC[PID]" lines; the workload's processes woken
    not grep -vE '^.*\[[0-9]+\] (sleeping|wakes up .*\[[0-9]+\])$' 050.out
    grep -Eq '\] wakes up (sh|cat|sleep)\[[0-9]+\]$' 050.out
    grep -q ' sleeping$' 050.out
}
