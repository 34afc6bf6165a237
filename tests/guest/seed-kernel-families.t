# seed corpus, issue-14 families: 055/068 (tracepoints), 042 (timer.profile), 043 (perf hw cache) as their INDEX.md rows describe
# Used by tests/run (issue 14 acceptance). The corpus lives beside the repository (SEED_CORPUS, default
# TOP/../shared/seed-scripts); without it, or without the kernel's DWARF, the case is skipped. Each script
# is translated as its "# cmd:" says, run with staprun -c and a workload, its output checked for the row's shape.

timeout_s=120

corpus() { echo "${SEED_CORPUS:-$TOP/../shared/seed-scripts}"; }

SEEDS="042 043 055 068"

build() {
    local dir n f
    dir=$(corpus)
    [[ -f $dir/INDEX.md ]] || { echo "no seed corpus at $dir"; exit 77; }
    [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]] || { echo "no /usr/lib/debug/boot/vmlinux-$KVER"; exit 77; }
    for n in $SEEDS; do
        f=$(echo "$dir/${n}"_*.stp)
        [[ -f $f ]] || { echo "no ${n}_*.stp in $dir"; return 1; }
    done
    $STAP -p4 -m seed_042 "$(echo "$dir"/042_*.stp)" >/dev/null
    # 043's cmd: stap -v -e SCRIPT -d <path-to-lib> (the library path is a placeholder)
    $STAP -p4 -m seed_043 "$(echo "$dir"/043_*.stp)" >/dev/null
    $STAP -p4 -m seed_055 "$(echo "$dir"/055_*.stp)" >/dev/null
    # 068's cmd: stap --all-modules -e SCRIPT
    $STAP --all-modules -p4 -m seed_068 "$(echo "$dir"/068_*.stp)" >/dev/null
}

run() {
    local rc=0
    staprun -c "$2" "seed_$1.ko" >"$1.out" 2>"$1.err" || rc=$?
    echo "$rc" >"$1.rc"
}

guest() {
    # 042 samples every CPU for its 20 s (timer.s(20) ends it) while a shell loop keeps one busy
    (end=$((SECONDS + 22)); while (( SECONDS < end )); do :; done) &
    run 042 'sleep 21'
    wait
    # 043: the guest's emulated CPU has no PMU: the hardware cache event cannot be armed
    run 043 'true'
    run 055 'cat /etc/passwd >/dev/null'
    # the kernel runs its periodic work (vmstat_update ...) at least once a second
    run 068 'sleep 2'
}

check() {
    local n
    # unread statistics printed at the end, one line per [pid, execname]; the busy shell had most of
    # a CPU's ticks for 20 s (HZ 250: about 5000)
    [[ $(cat 042.rc) == 0 ]]
    awk -F'[= ]' '/^load\[/ && $3 >= 2000 { found = 1 } END { exit !found }' 042.out
    not grep -vE '^load\[[0-9]+,"[^"]*"\] @count=[0-9]+ @min=1 @max=1 @sum=[0-9]+ @avg=1$' 042.out
    # 043: refused at start with the reason, exit 1
    [[ $(cat 043.rc) == 1 ]]
    grep -q 'no PMU of this machine counts it' 043.err
    for n in 055 068; do
        [[ $(cat "$n.rc") == 0 ]] || { echo "seed $n exited $(cat "$n.rc")"; cat "$n.err"; return 1; }
        only_skip_warnings "$n.err"
    done
    # "PAGE 0x... order: 0 flags: ... migrate: N": every line, and at least one
    grep -qE '^PAGE 0x[0-9a-f]+ order: [0-9a-f]+ flags: [0-9a-f]+ migrate: [0-9]+$' 055.out
    not grep -vE '^PAGE 0x[0-9a-f]+ order: [0-9a-f]+ flags: [0-9a-f]+ migrate: [0-9]+$' 055.out
    # pn() as written, the work function's name and the work item's address
    grep -qE '^kernel\.trace\("workqueue_execute_start"\) [A-Za-z_][A-Za-z_0-9.]*\(0x[0-9a-f]+\)$' 068.out
    grep -qE '^kernel\.trace\("workqueue_execute_end"\) [A-Za-z_][A-Za-z_0-9.]*\(0x[0-9a-f]+\)$' 068.out
    not grep -vE '^kernel\.trace\("workqueue_execute_(start|end)"\) [A-Za-z_][A-Za-z_0-9.]*\(0x[0-9a-f]+\)$' 068.out
}
