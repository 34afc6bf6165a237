# kernel.trace: sched_switch count equals the kernel's own tracefs count (until the task exits); typed $prev/$next/$bprm reads; $$parms; sched:* wildcard
# Used by tests/run (issue 14): the tracepoint provider, DWARF-typed tracepoint arguments, registration and removal.

timeout_s=120
btf_rerun=1

# tpswitch: prints its pid, then sleeps 2 ms 100 times (each sleep switches it out and back in)
write_tpswitch() {
    cat >tpswitch.c <<'EOF'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	printf("tpswitch pid %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < 100; i++)
		usleep(2000);
	return 0;
}
EOF
    gcc -O2 -o tpswitch tpswitch.c
}

build() {
    need_kernel_dwarf
    write_tpswitch
    # every tracepoint the kernel's DWARF describes, as SYSTEM:NAME
    $STAP -l 'kernel.trace("*")' | sed 's/^kernel\.trace("\(.*\)")$/\1/' | sort >ours.list
    # every switch of tpswitch (out or in) until it starts to exit, and the pids it ran as; exec: the
    # file and old pid. Its exit is where the count stops, here and in tracefs (check): stapio is told
    # of the exit while the task still runs do_exit(), and ends the run at once, so the switches after
    # it (the last one, and on -rt any where its exit path blocks) may or may not be seen.
    $STAP -p4 -m t_tpswitch -e '
global sw, pids, exiting
probe kernel.trace("sched:sched_switch") {
    if (exiting) next
    if (kernel_string($prev->comm) == "tpswitch") { sw <<< 1; pids[$prev->pid] <<< 1 }
    else if (kernel_string($next->comm) == "tpswitch") { sw <<< 1; pids[$next->pid] <<< 1 }
}
probe kernel.trace("sched:sched_process_exit") {
    if (execname() == "tpswitch") exiting = 1
}
probe kernel.trace("sched:sched_process_exec") {
    if (execname() == "tpswitch")
        printf("exec %s old_pid_is_pid %d parms %s\n", kernel_string($bprm->filename), $old_pid == pid(), $$parms)
}
probe end {
    printf("switches %d\n", @count(sw))
    foreach (p in pids) printf("switch pid %d\n", p)
}' >/dev/null
    # every tracepoint of the sched system; which ones fired while a shell forked and ran programs
    $STAP -p4 -m t_tpsched -e '
global hits
probe kernel.trace("sched:*") { hits[pp()] <<< 1 }
probe end { foreach (p in hits) printf("%s\n", p) }' >/dev/null
}

guest() {
    local ev=/sys/kernel/tracing/events/sched/sched_switch
    # the kernel records the same switches in its own buffer: only tpswitch's (prev or next), those
    # before its sched_process_exit (the trace is in time order)
    local ex=/sys/kernel/tracing/events/sched/sched_process_exit
    echo 0 >/sys/kernel/tracing/tracing_on
    echo >/sys/kernel/tracing/trace
    echo 'prev_comm == "tpswitch" || next_comm == "tpswitch"' >$ev/filter
    echo 'comm == "tpswitch"' >$ex/filter
    echo 1 >$ev/enable
    echo 1 >$ex/enable
    echo 1 >/sys/kernel/tracing/tracing_on
    staprun -c ./tpswitch t_tpswitch.ko >switch.out
    echo 0 >/sys/kernel/tracing/tracing_on
    echo 0 >$ev/enable
    echo 0 >$ex/enable
    echo 0 >$ev/filter
    echo 0 >$ex/filter
    awk '/sched_process_exit:/ { exit } /sched_switch:/ { n++ } END { print n + 0 }' /sys/kernel/tracing/trace >tracefs.count
    grep -c 'sched_process_exit:' /sys/kernel/tracing/trace >tracefs.exits || true
    grep -m 3 'sched_switch:' /sys/kernel/tracing/trace >tracefs.sample || true
    cat /sys/kernel/tracing/per_cpu/cpu*/stats >tracefs.stats
    staprun -c 'sh -c "ls / >/dev/null; sleep 0.2; true"' t_tpsched.ko >sched.out
    # the kernel's own list of trace events: SYSTEM:NAME
    (cd /sys/kernel/tracing/events && for d in */*/; do d=${d%/}; echo "${d%%/*}:${d#*/}"; done) | sort >tracefs.list
}

check() {
    [[ $(cat rc) == 0 ]]
    local ours theirs pid
    ours=$(sed -n 's/^switches \([0-9]*\)$/\1/p' switch.out)
    theirs=$(cat tracefs.count)
    echo "ours $ours tracefs $theirs"
    # tracefs lost nothing (overrun 0 on every CPU), and both saw every switch of tpswitch
    not grep -E '^overrun: [1-9]' tracefs.stats
    [[ $(cat tracefs.exits) == 1 ]]
    (( theirs >= 200 ))
    [[ $ours == "$theirs" ]]
    # the switches were tpswitch's own pid: the one it printed
    pid=$(sed -n 's/^tpswitch pid \([0-9]*\)$/\1/p' switch.out)
    [[ -n $pid ]]
    grep -qx "switch pid $pid" switch.out
    [[ $(grep -c '^switch pid ' switch.out) == 1 ]]
    # sched_process_exec: the file run, old_pid == pid(), $$parms in SystemTap's form (numbers in hex)
    grep -Eq "^exec \./tpswitch old_pid_is_pid 1 parms p=0x[0-9a-f]+ old_pid=$(printf '0x%x' "$pid") bprm=0x[0-9a-f]+$" \
        switch.out
    # every trace event of the kernel that we list has the system the kernel gives it (the events of
    # modules and the ftrace-internal ones are not in the kernel's DWARF as tracepoints)
    local mismatch
    mismatch=$(join -t' ' -1 2 -2 2 -o 1.1,2.1,1.2 <(sed 's/:/ /' ours.list | sort -k2) <(sed 's/:/ /' tracefs.list | sort -k2) |
               awk '$1 != $2' | head -n 5)
    [[ -z $mismatch ]] || { echo "systems differ (ours tracefs name): $mismatch"; false; }
    (( $(join -t' ' -1 2 -2 2 <(sed 's/:/ /' ours.list | sort -k2) <(sed 's/:/ /' tracefs.list | sort -k2) | wc -l) >= 400 ))
    # the wildcard: one probe per sched tracepoint, several of them hit by a shell running programs
    for tp in sched_switch sched_process_fork sched_process_exec sched_process_exit sched_wakeup \
              sched_process_wait; do
        grep -qx "kernel.trace(\"sched:$tp\")" sched.out
    done
}
