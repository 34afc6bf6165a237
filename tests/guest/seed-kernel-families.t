# seed corpus, issue-14 families: 055/068 (tracepoints), 042 (timer.profile), 043 (perf hw cache) as their INDEX.md rows describe
# Used by tests/run (issue 14 acceptance). The corpus lives beside the repository (SEED_CORPUS, default
# TOP/../shared/seed-scripts); without it, or without the kernel's DWARF, the case is skipped. Each script
# is translated as its "# cmd:" says, run with staprun -c and a workload, its output checked for the row's shape.

timeout_s=120
btf_rerun=1

SEEDS="042 043 055 068"

build() {
    # shellcheck disable=SC2086
    seed_need $SEEDS
    $STAP -p4 -m seed_042 "$(seed_file 042)" >/dev/null
    # 043's cmd: stap -v -e SCRIPT -d <path-to-lib> (the library path is a placeholder)
    $STAP -p4 -m seed_043 "$(seed_file 043)" >/dev/null
    $STAP -p4 -m seed_055 "$(seed_file 055)" >/dev/null
    # 068's cmd: stap --all-modules -e SCRIPT
    $STAP --all-modules -p4 -m seed_068 "$(seed_file 068)" >/dev/null
}

guest() {
    # 042 samples every CPU for its 20 s (timer.s(20) ends it) while a shell loop keeps one busy
    (end=$((SECONDS + 22)); while (( SECONDS < end )); do :; done) &
    seed_run 042 'sleep 21'
    wait
    # 043: the guest's emulated CPU has no PMU: the hardware cache event cannot be armed
    seed_run 043 'true'
    seed_run 055 'cat /etc/passwd >/dev/null'
    # the kernel runs its periodic work (vmstat_update ...) at least once a second
    seed_run 068 'sleep 2'
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
