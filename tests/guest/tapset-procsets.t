# target_set_pid/target_set_report, pstrace, task_rlimit and the task_rlimit_* functions, argv/argc, on a known command tree run with -c
# Used by tests/run (issue 31): tapset/linux/target_set.stp, pstrace.stp, task_rlimit.stp, tapset/argv.stp.

timeout_s=60

build() {
    $STAP -p4 -m t_procsets "$TOP/tests/guest/scripts/procsets/procsets.stp" alpha 'b c' 42 >/dev/null
}

guest() {
    local limits="ulimit -S -n 77; ulimit -S -c 5; ulimit -S -s 1234; ulimit -S -t 99"
    staprun -c "bash -c '$limits; sleep 0.1; exec sleep 0.2'" t_procsets.ko >run.out 2>run.err
    # the same limits as the kernel shows them: the soft limits in RLIMIT_* order
    bash -c "$limits; cat /proc/self/limits" >limits.out
    # the ancestors pstrace named above staprun (gone with it): each one's parent, as /proc says (they still run)
    local pid
    for pid in $(sed -n 's/^pstrace //p' run.out | grep -o '([0-9]*)' | tr -d '()' | tail -n +4); do
        echo "$pid $(cut -d' ' -f4 /proc/$pid/stat) $(cat /proc/$pid/comm)"
    done >ancestors.out
}

check() {
    local target stapio child
    [[ ! -s run.err ]]
    read -r _ target stapio < <(grep '^target ' run.out)
    read -r _ child parent < <(grep '^child ' run.out)
    [[ $parent == "$target" ]]
    # the 16 limits as /proc/PID/limits gives them ("unlimited" is -1), those set by ulimit among them
    [[ $(grep '^rlimit ' run.out) == "rlimit $(awk 'NR > 1 { v = substr($0, 27, 21); gsub(/ /, "", v);
        printf " %s", v == "unlimited" ? -1 : v }' limits.out | cut -c2-)" ]]
    grep -q '^rlimit 99 -1 [-0-9]* 1263616 5120 [-0-9]* [0-9]* 77 ' run.out
    grep -qx 'by-name 77 1263616 -1' run.out
    # pstrace: sleep itself, then stapio (which started it), staprun, then their ancestors
    grep -Eq "^pstrace sleep\\($target\\) stapio\\($stapio\\) staprun\\([0-9]+\\)( [^ ]+\\([0-9]+\\))+\$" run.out
    grep -qx 'pstrace-init \[\]' run.out
    # each ancestor's parent is the next one; the last one's is init
    local prev_ppid=$stapio line last_ppid
    local -a names
    read -ra names < <(sed -n 's/^pstrace //p' run.out)
    [[ ${#names[@]} -ge 4 ]]
    local i=3
    while read -r pid ppid comm; do
        [[ ${names[i]} == "$comm($pid)" ]]
        last_ppid=$ppid
        i=$((i + 1))
    done <ancestors.out
    [[ $i == "${#names[@]}" && $last_ppid == 1 ]]
    diff <(sed -n '/^target set:$/,/^members/p' run.out) - <<EOW
target set:
$stapio begat $target
$target begat $child
members 1 0 0
EOW
    diff <(sed -n '/^argc/,$p' run.out) - <<'EOW'
argc 3
argv[1] alpha
argv[2] b c
argv[3] 42
EOW
}
