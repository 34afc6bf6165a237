# published-kind scripts on the syscall tapset and DWARF probes: syscalls_by_proc, errsnoop, para-callgraph, functioncallcount, wait4time, topsys under a program with known calls
# Used by tests/run (issue 15): tests/guest/scripts/general/*.stp (written for these tests) and pubprog.c.
# Rerun as btf/tapset-general-scripts (issue 21): the same output typed from BTF, but para-callgraph's
# FUNC@FILE pattern, which needs DWARF (refused naming the -dbg package), is a name glob there.

timeout_s=180
btf_rerun=1

build() {
    need_kernel_dwarf
    local d=$TOP/tests/guest/scripts/general
    cc -O2 -Wall -Wextra -Werror -o pubprog "$d/pubprog.c"
    # compiled in parallel: errsnoop and the syscall.* ones are large (two probes per system call).
    # Every hit of these probes, any process's, takes the script's global locks with a bounded trylock
    # (MAXTRYLOCK attempts, 10 ns apart). Under single-threaded TCG a vCPU is descheduled for up to
    # 100 ms while it holds a lock, so the other one's hits were skipped (counted, reported) often
    # enough to lose the one call a check looks for; SystemTap's -DMAXTRYLOCK lets them wait that out.
    local wait=-DMAXTRYLOCK=100000000
    $STAP $wait -p4 -m t_sbp "$d/syscalls_by_proc.stp" >/dev/null &
    $STAP $wait -p4 -m t_errsnoop "$d/errsnoop.stp" >/dev/null &
    local pcg='*@fs/read_write.c'
    if [[ -n ${FROM_BTF:-} ]]; then
        not $STAP -p2 "$d/para-callgraph.stp" "$pcg" 2>pcg.p2err
        grep -q "function(\"NAME@FILE\") patterns need the kernel's DWARF (install linux-image-$KVER-dbg)" pcg.p2err ||
            { cat pcg.p2err; return 1; }
        pcg='[kv]*s_read'
    fi
    $STAP $wait -p4 -m t_pcg "$d/para-callgraph.stp" "$pcg" >/dev/null &
    $STAP $wait -p4 -m t_fcc "$d/functioncallcount.stp" 'vfs_*' >/dev/null &
    $STAP $wait -p4 -m t_w4 "$d/wait4time.stp" >/dev/null &
    $STAP $wait -p4 -m t_topsys "$d/topsys.stp" >/dev/null &
    local p rc=0
    for p in $(jobs -p); do
        wait "$p" || rc=1
    done
    return $rc
}

guest() {
    local m
    for m in sbp errsnoop pcg fcc w4 topsys; do
        staprun -c ./pubprog "t_$m.ko" >"$m.out" 2>"$m.err"
        sed "s/^/$m: /" "$m.err" >&2
    done
}

# skips M: the hits module M's summary reports as skipped (0 without a summary)
skips() {
    sed -n 's/^WARNING: Skipped probes: \([0-9]*\) .*/\1/p' "$1.err" | awk '{n += $1} END {print n + 0}'
}

check() {
    [[ $(cat rc) == 0 ]]
    local pid m
    for m in sbp errsnoop pcg fcc w4 topsys; do
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
    # para-callgraph: the 50 reads of /dev/zero: ksys_read calls vfs_read one level deeper (which calls
    # rw_verify_area deeper still), both return 0x40 at their own depth. Every hit of the *@fs/read_write.c
    # probes, any process's, takes the script's locks, so a few hits are skipped (counted, reported) under
    # TCG and a lost return shifts thread_indent's later depths: depths are compared with each other, and
    # most of the 50 calls must be complete. The -c command is pubprog itself (target()), no shell (the same
    # pid is still "stapio" while it execs pubprog).
    [[ -z $(grep -v ' pubprog(' pcg.out | grep -v '^pubprog ' | grep -v ' stapio(') ]]
    n=$(awk '
        / pubprog\([0-9]+\):/ {
            line = $0
            sub(/^ *[0-9]+ pubprog\([0-9]+\):/, "", line)
            match(line, /^ */)
            d = RLENGTH
            rest = substr(line, d + 1)
            if (rest ~ /^->ksys_read fd=0x3 buf=0x[0-9a-f]+ count=0x40$/) { st = 1; kd = d; next }
            if (st == 1 && d == kd + 1 && rest ~ /^->vfs_read file=0x[0-9a-f]+ buf=0x[0-9a-f]+ count=0x40 pos=0x[0-9a-f]+$/) { st = 2; next }
            if (st == 2 && d >= kd + 2) next
            if (st == 2 && d == kd + 1 && rest == "<-vfs_read return=0x40") { st = 3; next }
            if (st == 3 && d == kd && rest == "<-ksys_read return=0x40") { ok++ }
            st = 0
        }
        END { print ok + 0 }' pcg.out)
    echo "pcg: $n complete reads"
    (( n >= 40 && n <= 51 ))
    # functioncallcount: vfs_read for the 50 reads of /dev/zero, the hostname, the loader's reads
    n=$(awk '$1 == "vfs_read" {print $2}' fcc.out)
    echo "fcc: vfs_read $n"
    (( n >= 51 - $(skips fcc) && n < 80 ))
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
