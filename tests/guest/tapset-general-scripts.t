# published-kind scripts on the syscall tapset: syscalls_by_proc, errsnoop, wait4time, topsys under a program with known calls
# Used by tests/run (issue 15): tests/guest/scripts/general/*.stp (written for these tests) and pubprog.c; the
# scripts on DWARF probes of kernel functions, para-callgraph and functioncallcount: tests/guest/tapset-general-calls.t.
# Rerun as btf/tapset-general-scripts (issue 21): the same output typed from BTF. BTF types these four as DWARF
# does, so the rerun's modules are the same, byte for byte, and the rerun reads this case's guest run (tests/run's
# btf_same_run) instead of loading them again: the two whose modules differ there are tapset-general-calls'.

timeout_s=180
btf_rerun=1

build() {
    need_kernel_dwarf
    pubprog_build
    # compiled in parallel: errsnoop and the syscall.* ones are large (two probes per system call)
    spawn general_module sbp syscalls_by_proc
    spawn general_module errsnoop errsnoop
    spawn general_module w4 wait4time
    spawn general_module topsys topsys
    wait_jobs
}

guest() {
    pubprog_runs sbp errsnoop w4 topsys
}

check() {
    [[ $(cat rc) == 0 ]]
    local pid m
    for m in sbp errsnoop w4 topsys; do
        echo "$m: $(skips $m) skipped"
    done
    # syscalls_by_proc: pubprog's 1000 getppid calls and a few dozen more (its start, its child's)
    grep -qx "#SysCalls  Process Name" sbp.out
    local n
    n=$(awk '$2 == "pubprog" {print $1}' sbp.out)
    echo "sbp: pubprog $n"
    (( n >= 1008 - $(skips sbp) && n < 1300 ))
    # errsnoop: the open of the missing file, with its decoded arguments; nothing else of pubprog failed
    # but the dynamic loader's probes of absent files
    [[ $(sed -n 1p errsnoop.out) == "PROCESS             PID SYSCALL      ERROR    ARGUMENTS" ]]
    pid=$(sed -n 's/^pubprog \([0-9]*\) child.*/\1/p' errsnoop.out)
    grep -qE "^pubprog +$pid openat +ENOENT +AT_FDCWD, \"/nonexistent/errsnoop-probe\", O_RDONLY$" errsnoop.out
    # only the -c command's calls (target() is pubprog's pid, not a shell's)
    [[ -z $(sed '1d' errsnoop.out | grep -v "^pubprog ") ]]
    # wait4time: pubprog waited at least the child's 300 ms for it, which exited with 7
    pid=$(sed -n 's/^pubprog \([0-9]*\) child \([0-9]*\) status 7$/\2/p' w4.out)
    [[ -n $pid ]]
    local us
    us=$(sed -n "s/^pubprog([0-9]*) wait4($pid, 0x[0-9a-f]*, [^,]*, 0x0*) = $pid after \\([0-9]*\\) us\$/\\1/p" w4.out)
    (( us >= 300000 && us < 30000000 ))
    # topsys: getppid's 1000 calls, over however many 5 s intervals the run took (less any a report's
    # write lock made skip, counted and reported)
    grep -qx "                  SYSCALL      COUNT" topsys.out
    n=$(awk '$1 == "getppid" {n += $2} END {print n + 0}' topsys.out)
    echo "topsys: getppid $n"
    (( n >= 1000 - $(skips topsys) && n <= 1000 ))
}
