# seed corpus, tracepoint scripts: 055 (mm_page_alloc) and 068 (workqueue_execute_*) print what their INDEX.md rows describe
# Used by tests/run (issue 14 acceptance). The corpus lives beside the repository (SEED_CORPUS, default
# TOP/../shared/seed-scripts); without it, or without the kernel's DWARF, the case is skipped. Each script
# is translated as its "# cmd:" says, run with staprun -c and a workload, its output checked for the row's shape.

timeout_s=90

corpus() { echo "${SEED_CORPUS:-$TOP/../shared/seed-scripts}"; }

SEEDS="055 068"

build() {
    local dir n f
    dir=$(corpus)
    [[ -f $dir/INDEX.md ]] || { echo "no seed corpus at $dir"; exit 77; }
    [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]] || { echo "no /usr/lib/debug/boot/vmlinux-$KVER"; exit 77; }
    for n in $SEEDS; do
        f=$(echo "$dir/${n}"_*.stp)
        [[ -f $f ]] || { echo "no ${n}_*.stp in $dir"; return 1; }
    done
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
    run 055 'cat /etc/passwd >/dev/null'
    # the kernel runs its periodic work (vmstat_update ...) at least once a second
    run 068 'sleep 2'
}

check() {
    local n
    for n in $SEEDS; do
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
