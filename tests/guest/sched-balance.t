# scheduler.balance (newly idle balancing) fires when the workload's tasks block and leave a CPU with nothing to run
# Used by tests/run (issue 15): tapset/linux/scheduler.stp.

timeout_s=120
btf_rerun=1

# every hit in the workload (the shell stap runs, its sleep children), counted by command and name (statistics:
# the probe fires on every CPU going idle, and `<<<` takes no write lock that the CPUs would contend for)
t_balance='
global hits, cpus
probe scheduler.balance {
    if (pid() == target() || ppid() == target()) {
        hits[execname(), name] <<< 1
        cpus[cpu()] <<< 1
    }
}
probe end {
    foreach ([e, n] in hits)
        printf("balance|%s|%s|%d\n", e, n, @count(hits[e, n]))
    foreach (c in cpus)
        printf("cpu|%d\n", c)
}'

build() {
    $STAP -p4 -m t_balance -e "$t_balance" >/dev/null
    $STAP -L scheduler.balance >L.out
    # the function newly idle balancing has on this kernel (from BTF: no @FILE:LINE)
    local end='@'
    [[ -z ${FROM_BTF:-} ]] || end='"\)'
    $STAP -p2 -e 'probe scheduler.balance {}' |
        grep -E "kernel.function\\(\"(sched_balance_newidle|newidle_balance|idle_balance)$end" >p2.out
}

guest() {
    staprun -c 'sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.05; done"' t_balance.ko >bal.out 2>bal.err
    echo "t_balance exit $?"
}

check() {
    grep -qx 't_balance exit 0' out || { cat out; cat bal.err; return 1; }
    [[ ! -s bal.err ]] || { cat bal.err; return 1; }
    grep -qx 'scheduler.balance name:string' L.out || { cat L.out; return 1; }
    # each of the ten sleeps blocks its task: at least one of them left its CPU with nothing to run (the
    # shell waiting for them and, before its exec, the forked stapio child hit it too)
    grep -Eq '^balance\|sleep\|idle_balance\|[1-9][0-9]*$' bal.out || { cat bal.out; return 1; }
    not grep -Ev '^(balance\|(sleep|sh|stapio)\|idle_balance\|[0-9]+|cpu\|[01])$' bal.out || { cat bal.out; return 1; }
}
