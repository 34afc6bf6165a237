# light hit path: exact counts from both CPUs at once, reentrancy skips counted and reported, MAXACTION kept
# Used by tests/run (issue 14): runtime/core/probe.c's __stp_run_light and stats/stat.c's lock-free @count statistics.

timeout_s=180

CALLS=200000    # sched_get_priority_max calls per CPU

# lightload N: one process pinned to each of CPUs 0 and 1, each calling sched_get_priority_max N
# times at the same time (a syscall nothing else in the guest makes).  lightload -s N: one
# process, N calls, a millisecond apart.
write_lightload() {
    cat >lightload.c <<'EOF'
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void calls(long n, int sleep_us)
{
	for (long i = 0; i < n; i++) {
		syscall(SYS_sched_get_priority_max, SCHED_OTHER);
		if (sleep_us)
			usleep(sleep_us);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-s")) {
		calls(atol(argv[2]), 1000);
		return 0;
	}
	if (argc != 2)
		return 2;
	for (int cpu = 0; cpu < 2; cpu++) {
		if (fork() == 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(3);
			calls(atol(argv[1]), 0);
			_exit(0);
		}
	}
	int status, bad = 0;
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	return bad;
}
EOF
    gcc -O2 -Wall -Werror -o lightload lightload.c
}

P='kprobe.function("__x64_sys_sched_get_priority_max")'

build() {
    write_lightload
    # counts: c <<< 1 (light, no lock) and n++ (light, n's write lock) against a heavy probe on the
    # same function counting per program and CPU (a local keeps it off the light path, which takes
    # statistics-array adds too); a timer reads @count(c) while the adds run
    local counts="
global c, n, who, mid
probe $P { c <<< 1 }
probe $P { n++ }
probe $P { one = 1; who[execname(), cpu()] <<< one }
probe timer.ms(20) { mid[@count(c)] = 1 }
probe end {
    printf(\"count %d\\nn %d\\n\", @count(c), n)
    foreach ([p, cpu] in who) printf(\"who %s %d %d\\n\", p, cpu, @count(who[p, cpu]))
    foreach (m in mid+) printf(\"mid %d\\n\", m)
}"
    $STAP -p3 -e "$counts" >counts.c
    $STAP -p4 -m t_lcount -DMAXSKIPPED=1000000000 -e "$counts" >/dev/null
    # reentrancy: a heavy handler with interrupts enabled (a kprobe entered through ftrace) runs
    # long enough for local timer interrupts to come in; the light probe on their tracepoint is
    # then skipped on that CPU, counted and reported
    local reent="
global t, heavy
probe kernel.trace(\"irq_vectors:local_timer_entry\") { t <<< 1 }
probe $P { for (i = 0; i < 60000; i++) heavy += i }
probe end { printf(\"ticks %d\\n\", @count(t) > 0) }"
    $STAP -p3 -e "$reent" >reent.c
    $STAP -p4 -m t_lreent -DMAXACTION=1000000 -DMAXSKIPPED=1000000000 -DSTP_NO_OVERLOAD -e "$reent" >/dev/null
    # a light body with more statements than MAXACTION: the full path, which reports the limit
    $STAP -p4 -m t_lmax -DMAXACTION=1 -e "global n; probe $P { n++; n++ }" >/dev/null
}

guest() {
    staprun -c "./lightload $CALLS" t_lcount.ko >counts.out 2>counts.err
    staprun -c "./lightload -s 400" t_lreent.ko >reent.out 2>reent.err
    local rc=0
    staprun -c "./lightload -s 1" t_lmax.ko >max.out 2>max.err || rc=$?
    echo "$rc" >max.rc
}

# skipped KIND FILE: the skips of KIND (reentrancy, lock contention) FILE's summary reports, 0 without one
skipped() {
    sed -n "s/^WARNING: Skipped probes: [0-9]* (.*$1 \([0-9]*\).*)\$/\1/p" "$2" | grep . || echo 0
}

check() {
    [[ $(cat rc) == 0 ]]
    # the probes on the syscall are light (their generated C), the heavy ones are not
    grep -q '^#define STP_LIGHT_PROBE_0 STP_LIGHT_OK(1)' counts.c
    grep -q '^#define STP_LIGHT_PROBE_1 STP_LIGHT_OK(1)' counts.c
    not grep -q 'STP_LIGHT_PROBE_[234]' counts.c
    grep -q 'stp_stat_count_inc(g_c);' counts.c
    grep -q '^#define STP_LIGHT_PROBE_0 STP_LIGHT_OK(1)' reent.c
    not grep -q 'STP_LIGHT_PROBE_1' reent.c

    # every call from both CPUs counted once by the lock-free statistic, as the heavy probe saw them
    local total count n lock
    total=$(awk '$1 == "who" { s += $4 } END { print s + 0 }' counts.out)
    count=$(sed -n 's/^count //p' counts.out)
    n=$(sed -n 's/^n //p' counts.out)
    echo "calls seen by the heavy probe $total, c <<< 1 $count, n++ $n"
    grep -qx "who lightload 0 $CALLS" counts.out
    grep -qx "who lightload 1 $CALLS" counts.out
    [[ $count == "$total" ]]
    # n++ takes n's lock: a hit that finds it held by the other CPU too long is skipped and counted
    lock=$(skipped "lock contention" counts.err)
    (( n + lock == total ))
    only_skip_warnings counts.err
    # @count(c) read while both CPUs added: never more than the final count (mid values ascending)
    awk -v c="$count" '$1 == "mid" && $2 > c { bad = 1 } END { exit bad }' counts.out

    # reentrancy: the light probe was skipped under the heavy handler, and that was reported
    local reent
    reent=$(skipped reentrancy reent.err)
    echo "reentrancy skips $reent"
    (( reent > 0 ))
    grep -qx 'ticks 1' reent.out
    only_skip_warnings reent.err

    # MAXACTION=1 under a two-statement light body: the error, as on the full path
    [[ $(cat max.rc) == 1 ]] || { echo "t_lmax: exit $(cat max.rc)"; cat max.err; return 1; }
    grep -q "^ERROR: MAXACTION exceeded near identifier 'n' at <input>:1:" max.err
}
