# scheduler.*, kprocess.*, signal.* tapset aliases fire under a fork/exec/kill workload with the documented variables' values
# Used by tests/run (issue 15): tapset/linux/{scheduler,kprocess,signal,task}.stp, plus three published-kind scripts (forktracker, sigmon, ctxswitch counts).

timeout_s=150
btf_rerun=1

# sigprog: a handler for SIGUSR1 (sigaction), SIGUSR2 blocked (sigprocmask), SIGUSR1 sent to itself by kill,
# tkill and tgkill, a POSIX timer queuing SIGUSR2, sigpending, 30 ms spins pinned on CPU 0 then CPU 1, child a
# exiting with 3, child b killed by SIGTERM while it sleeps, then execs of a missing file and of /bin/true.
write_sigprog() {
    cat >sigprog.c <<'CEOF'
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static volatile int got;
static void on_usr1(int sig) { got += sig; }
static void spin_on(int cpu)
{
	cpu_set_t set;
	struct timespec a, b;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	clock_gettime(CLOCK_MONOTONIC, &a);
	do clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 30000000L);
}
int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	sigset_t blk, pend;
	timer_t tm;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2 };
	struct itimerspec its = { .it_value = { 0, 10000000 } };
	pid_t a, b, me = getpid(), tid = (pid_t)syscall(SYS_gettid);
	int st;

	printf("sigprog pid %d tid %d handler %p\n", (int)me, (int)tid, (void *)on_usr1);
	fflush(stdout);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&blk);
	sigaddset(&blk, SIGUSR2);
	sigprocmask(SIG_BLOCK, &blk, NULL);
	kill(me, SIGUSR1);
	syscall(SYS_tkill, tid, SIGUSR1);
	syscall(SYS_tgkill, me, tid, SIGUSR1);
	timer_create(CLOCK_MONOTONIC, &sev, &tm);
	timer_settime(tm, 0, &its, NULL);
	usleep(50000);
	sigpending(&pend);
	printf("got %d pending_usr2 %d\n", got, sigismember(&pend, SIGUSR2));
	spin_on(0);
	spin_on(1);
	a = fork();
	if (a == 0)
		_exit(3);
	b = fork();
	if (b == 0) {
		pause();
		_exit(0);
	}
	printf("child a %d b %d\n", (int)a, (int)b);
	fflush(stdout);
	waitpid(a, &st, 0);
	usleep(50000);
	kill(b, SIGTERM);
	waitpid(b, &st, 0);
	usleep(100000);
	execl("/nonexistent/prog", "prog", (char *)NULL);
	execl("/bin/true", "true", "arg1", (char *)NULL);
	return 1;
}
CEOF
    gcc -O2 -o sigprog sigprog.c
}

# schedtap_kt.ko: a kernel thread that sleeps until kthread_stop(), flushes its signals and returns 42
write_kmod() {
    mkdir -p kmod
    cat >kmod/schedtap_kt.c <<'CEOF'
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/sched/signal.h>
#include <linux/delay.h>
static struct task_struct *kt;
static int kt_fn(void *unused)
{
	while (!kthread_should_stop())
		msleep_interruptible(20);
	flush_signals(current);
	return 42;
}
static int __init kt_init(void)
{
	kt = kthread_run(kt_fn, NULL, "schedtap_kt");
	return IS_ERR(kt) ? PTR_ERR(kt) : 0;
}
static void __exit kt_exit(void)
{
	pr_info("schedtap_kt: stopped with %d\n", kthread_stop(kt));
}
module_init(kt_init);
module_exit(kt_exit);
MODULE_LICENSE("GPL");
CEOF
    echo 'obj-m := schedtap_kt.o' >kmod/Kbuild
    make -s -C "/lib/modules/$KVER/build" M="$PWD/kmod" modules >kmod/build.log 2>&1
}

write_scripts() {
    cat >sig.stp <<'SEOF'
probe signal.send {
	if (pid_name == "sigprog" && (sig == 10 || sig == 12))
		printf("send name=%s sig=%d sig_name=%s sig_pid=%d pid_name=%s si_code=%d shared=%d send2queue=%d task_ok=%d sinfo_ok=%d\n",
		       name, sig, sig_name, sig_pid, pid_name, si_code, shared, send2queue, task_pid(task) == sig_pid, sinfo != 0)
}
probe signal.send.return { if (execname() == "sigprog") printf("send.return name=%s retstr=%s\n", name, retstr) }
probe signal.deliver {
	if (execname() == "sigprog")
		printf("deliver name=%s sig=%d sig_name=%s si_code=%d handler=%p restart=%d sinfo_ok=%d\n", name, sig, sig_name, si_code,
		       sa_handler, (sa_flags & 0x10000000) != 0, sinfo != 0)
}
probe signal.handle {
	if (execname() == "sigprog")
		printf("handle name=%s sig=%d sig_name=%s sig_code=%d sig_mode=%s ka_ok=%d sinfo_ok=%d regs_ok=%d oldset_usr2=%d\n", name, sig,
		       sig_name, sig_code, sig_mode, get_sa_handler(ka_addr) != 0, sinfo != 0, regs != 0, is_sig_blocked(oldset_addr, 12))
}
probe signal.syskill { if (execname() == "sigprog") printf("syskill name=%s sig=%d sig_name=%s sig_pid=%d pid_name=%s task_is_cur=%d\n", name, sig, sig_name, sig_pid, pid_name, task == task_current()) }
probe signal.syskill.return { if (execname() == "sigprog") printf("syskill.return name=%s retstr=%s\n", name, retstr) }
probe signal.sys_tkill { if (execname() == "sigprog") printf("sys_tkill name=%s sig=%d sig_name=%s sig_pid=%d pid_name=%s task_is_cur=%d\n", name, sig, sig_name, sig_pid, pid_name, task == task_current()) }
probe signal.systkill { if (execname() == "sigprog") printf("systkill name=%s sig=%d sig_pid=%d\n", name, sig, sig_pid) }
probe signal.sys_tgkill { if (execname() == "sigprog") printf("sys_tgkill name=%s tgid=%d sig=%d sig_name=%s sig_pid=%d pid_name=%s task_is_cur=%d\n", name, tgid, sig, sig_name, sig_pid, pid_name, task == task_current()) }
probe signal.systgkill.return { if (execname() == "sigprog") printf("systgkill.return name=%s retstr=%s\n", name, retstr) }
probe signal.send_sig_queue { if (pid_name == "sigprog") printf("send_sig_queue name=%s sig=%d sig_name=%s sig_pid=%d pid_name=%s q_ok=%d\n", name, sig, sig_name, sig_pid, pid_name, sigqueue_addr != 0) }
probe signal.pending { if (execname() == "sigprog") printf("pending name=%s set_ok=%d size=%d\n", name, sigset_add != 0, sigset_size) }
probe signal.procmask { if (execname() == "sigprog" && how == 0) printf("procmask name=%s how=%d sigset=%#x mask=%s set_ok=%d\n", name, how, sigset, sigset_mask_str(sigset), sigset_addr != 0) }
probe signal.wakeup { if (pid_name == "sigprog") printf("wakeup name=%s sig_pid=%d pid_name=%s resume=%d state_mask=%s\n", name, sig_pid, pid_name, resume, state_mask) }
probe signal.checkperm { if (execname() == "sigprog" && sig == 10) printf("checkperm name=%s sig=%d sig_name=%s sig_pid=%d pid_name=%s si_code=%d task_ok=%d\n", name, sig, sig_name, sig_pid, pid_name, si_code, task_pid(task) == sig_pid) }
probe signal.checkperm.return { if (execname() == "sigprog") printf("checkperm.return name=%s retstr=%s\n", name, retstr) }
probe signal.do_action { if (execname() == "sigprog" && sig == 10 && sigact_addr) printf("do_action name=%s sig=%d sig_name=%s handler=%p\n", name, sig, sig_name, sa_handler) }
probe signal.flush { if (pid_name == "sigprog") printf("flush name=%s\n", name) }
probe begin { printf("names %s %s %s %s %s\n", signal_str(10), _signal_name(34), _signal_name(64), _signal_name(99), sigset_mask_str(0x202))
	printf("sa %s %s %s %s [%s] %s\n", sa_handler_str(0), sa_handler_str(1), sa_handler_str(-1), sa_handler_str(0x1000), sa_flags_str(0), sa_flags_str(0x14000005 | 0x100)) }
SEOF
    cat >sched.stp <<'SEOF'
global sp, sw_out, sw_in, on, off, ticks, wk, wkn, mig, fk, ex, wt, ss
probe scheduler.ctxswitch {
	if (sp && prev_pid == sp && (prevtsk_state & 0xff) == 1 && !sw_out++)
		printf("ctxswitch out name=%s prev_pid=%d prev_tid=%d prev_task_name=%s prev_priority=%d prevtsk_state=%d\n",
		       name, prev_pid, prev_tid, prev_task_name, prev_priority, prevtsk_state)
	if (next_task_name == "sigprog" && !sw_in++)
		printf("ctxswitch in next_pid=%d next_tid=%d next_task_name=%s next_priority=%d nexttsk_state=%d\n",
		       next_pid, next_tid, next_task_name, next_priority, nexttsk_state)
}
probe scheduler.cpu_on { if (execname() == "sigprog" && !on++) printf("cpu_on name=%s prev_ok=%d prev_not_cur=%d idle=%d\n", name, task_prev != 0, task_prev != task_current(), idle) }
probe scheduler.cpu_off { if (execname() == "sigprog" && !off++) printf("cpu_off name=%s prev_is_cur=%d next_ok=%d idle=%d\n", name, task_prev == task_current(), task_next != 0, idle) }
probe scheduler.tick { if (execname() == "sigprog" && !ticks++) printf("tick name=%s idle=%d\n", name, idle) }
probe scheduler.wakeup { if (sp && task_pid == sp && !wk++) printf("wakeup name=%s task_pid=%d task_tid=%d task_priority=%d task_cpu_ok=%d task_state=%d\n", name, task_pid, task_tid, task_priority, task_cpu == 0 || task_cpu == 1, task_state) }
probe scheduler.wakeup_new { if (execname() == "sigprog" && !wkn++) printf("wakeup_new name=%s task_pid=%d task_tid=%d task_priority=%d task_cpu_ok=%d task_state=%d\n", name, task_pid, task_tid, task_priority, task_cpu == 0 || task_cpu == 1, task_state) }
probe scheduler.migrate { if (task_execname(task) == "sigprog" && cpu_from == 0 && cpu_to == 1 && !mig++) printf("migrate name=%s pid=%d priority=%d cpu_from=%d cpu_to=%d\n", name, pid, priority, cpu_from, cpu_to) }
probe scheduler.process_fork { if (execname() == "sigprog" && !fk++) printf("process_fork name=%s parent_pid=%d child_pid=%d\n", name, parent_pid, child_pid) }
probe scheduler.process_exit { if (execname() == "sigprog" && !ex++) printf("process_exit name=%s pid=%d priority=%d\n", name, pid, priority) }
probe scheduler.process_wait { if (execname() == "sigprog" && !wt++) printf("process_wait name=%s pid=%d\n", name, pid) }
probe scheduler.signal_send { if (execname() == "sigprog" && !ss++) printf("signal_send name=%s pid=%d signal_number=%d\n", name, pid, signal_number) }
probe kprocess.create { if (execname() == "sigprog") printf("create new_pid=%d new_tid=%d task_ok=%d\n", new_pid, new_tid, task_pid(task) == new_pid) }
probe kprocess.start { if (execname() == "sigprog") printf("start pid=%d ppid=%d pexecname=%s\n", pid(), ppid(), pexecname()) }
probe kprocess.exec { if (execname() == "sigprog") printf("exec name=%s filename=%s args=%s\n", name, filename, args) }
probe kprocess.exec_complete { if (success && execname() == "sigprog") sp = pid()
	if (execname() == "sigprog" || execname() == "true") printf("exec_complete name=%s errno=%d success=%d retstr=%s execname=%s\n", name, errno, success, retstr, execname()) }
probe kprocess.exit { if (execname() == "sigprog") printf("exit pid=%d code=%d\n", pid(), code) }
probe kprocess.release { if (task_execname(task) == "sigprog") printf("release released_pid=%d released_tid=%d pid=%d\n", released_pid, released_tid, pid) }
SEOF
    # the task_* functions on a sleep run at nice 7 as uid 1234 by setpriv
    cat >task.stp <<'SEOF'
probe kprocess.exec_complete {
	if (success && execname() == "sleep") {
		t = task_current()
		printf("task pid=%d tid=%d execname=%s nice=%d prio=%d uid=%d euid=%d state=%d cpu_ok=%d parent_ok=%d pexecname=%s pid2execname=%s pid2task_ok=%d nopid=%d\n",
		       task_pid(t), task_tid(t), task_execname(t), task_nice(t), task_prio(t), task_uid(t), task_euid(t), task_state(t),
		       task_cpu(t) == cpu(), task_pid(task_parent(t)) == ppid(), pexecname(), pid2execname(pid()), pid2task(tid()) == t,
		       pid2task(-5))
	}
}
SEOF
    # kthread_stop and flush: on schedtap_kt.ko's thread
    cat >kthread.stp <<'SEOF'
probe scheduler.kthread_stop { printf("kthread_stop name=%s thread_pid=%d thread_priority=%d\n", name, thread_pid, thread_priority) }
probe scheduler.kthread_stop.return { printf("kthread_stop.return name=%s return_value=%d\n", name, return_value) }
probe signal.flush { if (pid_name == "schedtap_kt") printf("flush name=%s sig_pid=%d pid_name=%s task_ok=%d\n", name, sig_pid, pid_name, task_pid(task) == sig_pid) }
SEOF
    # published-kind scripts, written afresh: who forks and execs what; who sends a given signal to whom;
    # context switches per process
    cat >forktrack.stp <<'SEOF'
probe kprocess.create {
	printf("%-25s: %s (%d) created %d\n", ctime(gettimeofday_s()), execname(), pid(), new_pid)
}
probe kprocess.exec {
	printf("%-25s: %s (%d) is exec'ing %s\n", ctime(gettimeofday_s()), execname(), pid(), filename)
}
SEOF
    cat >sigmon.stp <<'SEOF'
probe begin {
	printf("%-8s %-16s %-8s %-16s %-6s %-16s\n", "SPID", "SNAME", "RPID", "RNAME", "SIGNUM", "SIGNAME")
}
probe signal.send {
	if (sig_name == @1)
		printf("%-8d %-16s %-8d %-16s %-6d %-16s\n", pid(), execname(), sig_pid, pid_name, sig, sig_name)
}
SEOF
    # sched_process_free fires from an RCU callback in a softirq, which may interrupt another of the
    # module's handlers on that CPU (a counted reentrancy skip, as in SystemTap): it rides with swcount.stp,
    # whose one probe (sched_switch) runs with interrupts off
    cat >free.stp <<'SEOF'
global free_child
probe scheduler.process_fork { if (execname() == "sigprog" && !free_child) free_child = child_pid }
probe scheduler.process_free { if (free_child && pid == free_child) printf("process_free name=%s pid=%d priority=%d\n", name, pid, priority) }
SEOF
    cat >swcount.stp <<'SEOF'
global switches
probe scheduler.ctxswitch {
	switches[prev_task_name, prev_pid]++
}
probe end {
	printf("%-16s %8s %10s\n", "EXECNAME", "PID", "SWITCHES")
	foreach ([name, p] in switches- limit 20)
		printf("%-16s %8d %10d\n", name, p, switches[name, p])
}
SEOF
}

build() {
    need_kernel_dwarf
    write_sigprog
    write_scripts
    write_kmod
    # -L lists each alias with SystemTap's variables (internal __names hidden)
    local a
    for a in 'scheduler.*' 'scheduler.*.return' 'kprocess.*' 'signal.*' 'signal.*.return'; do $STAP -L "$a"; done >L.out
    # every context switch takes sched.stp's global locks: under single-threaded TCG a vCPU descheduled while it
    # holds one made the other skip the one switch a check looks for (lock contention); wait that out, as
    # guest/tapset-general-scripts does
    if [[ -n ${FROM_BTF:-} ]] && ! $STAP -l 'kernel.function("do_sigpending")' >/dev/null 2>&1; then
        touch no-do_sigpending
    fi
    # typed from BTF: finish_task_switch, a .isra clone on Debian's kernels, is not in it, so cpu_on
    # is refused naming the -dbg package and the rest runs without it
    if [[ -n ${FROM_BTF:-} ]] && ! $STAP -p2 -e 'probe scheduler.cpu_on { }' >/dev/null 2>cpu_on.err; then
        grep -q "no function 'finish_task_switch' in the kernel's BTF.*(linux-image-$KVER-dbg)" cpu_on.err
        sed -i '/^probe scheduler.cpu_on /d; s/^global sp, sw_out, sw_in, on, /global sp, sw_out, sw_in, /' sched.stp
        touch no-cpu_on
    fi
    # sig.stp, sched.stp and forktrack.stp watch the same run of sigprog: one module, one run (their lines
    # differ in form; sig.stp's and forktrack.stp's probes write no global, so they take no lock)
    cat sig.stp sched.stp forktrack.stp >sigsched.stp
    $STAP -DMAXTRYLOCK=100000000 -p4 -m t_sigsched sigsched.stp >/dev/null
    $STAP -p4 -m t_kthread kthread.stp >/dev/null
    $STAP -p4 -m t_task task.stp >/dev/null
    $STAP -p4 -m t_sigmon sigmon.stp SIGTERM >/dev/null
    cat free.stp swcount.stp >freecount.stp
    $STAP -DMAXTRYLOCK=100000000 -p4 -m t_swcount freecount.stp >/dev/null
}

guest() {
    nproc >ncpu
    staprun -c ./sigprog t_sigsched.ko >sig.out
    staprun -c "sh -c 'nice -n 7 setpriv --reuid=1234 --regid=1234 --clear-groups sleep 0.1 & echo sleep \$!; wait'" t_task.ko >task.out
    insmod kmod/schedtap_kt.ko
    grep -lx schedtap_kt /proc/[0-9]*/comm | cut -d/ -f3 >ktpid
    staprun -c 'rmmod schedtap_kt' t_kthread.ko >kthread.out
    staprun -c 'sh -c "./sigprog; sleep 5 & echo sleeper \$!; sleep 0.5; kill -TERM \$!; wait"' t_sigmon.ko >sigmon.out
    staprun -c ./sigprog t_swcount.ko >swcount.out
}

# has FILE LINE: FILE holds LINE exactly
has() { grep -qxF -- "$2" "$1" || { echo "$1 lacks: $2"; grep -F "${2%% *}" "$1" | head -n 5; false; }; }

check() {
    [[ $(cat rc) == 0 ]]
    # sig.stp's, sched.stp's and forktrack.stp's lines: the one run of t_sigsched
    local sched=sig.out forktrack=sig.out
    local k
    has L.out "scheduler.ctxswitch name:string prev_pid:long prev_tid:long prev_task_name:string prev_priority:long prevtsk_state:long next_pid:long next_tid:long next_task_name:string next_priority:long nexttsk_state:long"
    has L.out "scheduler.wakeup name:string task_pid:long task_tid:long task_priority:long task_cpu:long task_state:long"
    has L.out "scheduler.kthread_stop.return name:string return_value:long"
    has L.out "kprocess.create task:long new_pid:long new_tid:long"
    has L.out "kprocess.release task:long released_pid:long released_tid:long pid:long"
    has L.out "signal.send name:string sig:long sig_name:string task:long sig_pid:long pid_name:string sinfo:long si_code:long shared:long send2queue:long"
    has L.out "signal.handle name:string sig:long sig_name:string sinfo:long ka_addr:long sig_code:long oldset_addr:long regs:long sig_mode:string"
    has L.out "signal.send_sig_queue name:string sigqueue_addr:long sig:long sig_name:string sig_pid:long pid_name:string"
    [[ $(grep -c '^scheduler\.' L.out) == $([[ -e no-cpu_on ]] && echo 14 || echo 15) && $(grep -c '^kprocess\.' L.out) == 6 ]]
    (( $(grep -c '^signal\.' L.out) >= 22 ))
    local p t h a b
    read -r p t h < <(sed -n 's/^sigprog pid \([0-9]*\) tid \([0-9]*\) handler \(0x[0-9a-f]*\)$/\1 \2 \3/p' sig.out)
    [[ -n $p && -n $h ]]
    h=$(printf '0x%016x' "$h")
    has sig.out "got 30 pending_usr2 1"
    has sig.out "sa default ignored error 0x0000000000001000 [] SA_NOCLDSTOP|SA_SIGINFO|SA_RESTORER|SA_RESTART|0x100"
    has sig.out "names SIGUSR1 SIGRTMIN+2 SIGRTMAX SIG_99 [SIGINT|SIGUSR1]"
    has sig.out "send name=send_signal sig=10 sig_name=SIGUSR1 sig_pid=$p pid_name=sigprog si_code=0 shared=1 send2queue=0 task_ok=1 sinfo_ok=1"
    has sig.out "send name=send_signal sig=10 sig_name=SIGUSR1 sig_pid=$p pid_name=sigprog si_code=-6 shared=0 send2queue=0 task_ok=1 sinfo_ok=1"
    has sig.out "send name=send_signal sig=12 sig_name=SIGUSR2 sig_pid=$p pid_name=sigprog si_code=-2 shared=1 send2queue=0 task_ok=1 sinfo_ok=1"
    has sig.out "send.return name=send_signal retstr=0"
    has sig.out "deliver name=signal_deliver sig=10 sig_name=SIGUSR1 si_code=0 handler=$h restart=1 sinfo_ok=1"
    has sig.out "deliver name=signal_deliver sig=10 sig_name=SIGUSR1 si_code=-6 handler=$h restart=1 sinfo_ok=1"
    has sig.out "handle name=signal_handle sig=10 sig_name=SIGUSR1 sig_code=0 sig_mode=USER ka_ok=1 sinfo_ok=1 regs_ok=1 oldset_usr2=1"
    has sig.out "syskill name=kill sig=10 sig_name=SIGUSR1 sig_pid=$p pid_name=sigprog task_is_cur=1"
    has sig.out "syskill.return name=kill retstr=0"
    has sig.out "sys_tkill name=tkill sig=10 sig_name=SIGUSR1 sig_pid=$t pid_name=sigprog task_is_cur=1"
    has sig.out "systkill name=tkill sig=10 sig_pid=$t"
    has sig.out "sys_tgkill name=tgkill tgid=$p sig=10 sig_name=SIGUSR1 sig_pid=$t pid_name=sigprog task_is_cur=1"
    has sig.out "systgkill.return name=tgkill retstr=0"
    has sig.out "send_sig_queue name=send_sigqueue sig=12 sig_name=SIGUSR2 sig_pid=$p pid_name=sigprog q_ok=1"
    # (typed from BTF where do_sigpending is inlined: rt_sigpending's entry, the kernel's set unknown)
    has sig.out "pending name=sigpending set_ok=$([[ -e no-do_sigpending ]] && echo 0 || echo 1) size=8"
    has sig.out "procmask name=sigprocmask how=0 sigset=0x800 mask=[SIGUSR2] set_ok=1"
    has sig.out "checkperm name=signal.checkperm sig=10 sig_name=SIGUSR1 sig_pid=$p pid_name=sigprog si_code=0 task_ok=1"
    has sig.out "checkperm.return name=signal.checkperm retstr=0"
    has sig.out "do_action name=sigaction sig=10 sig_name=SIGUSR1 handler=$h"
    # child b asleep in pause() is woken by SIGTERM
    read -r a b < <(sed -n 's/^child a \([0-9]*\) b \([0-9]*\)$/\1 \2/p' sig.out)
    [[ -n $b ]]
    # (typed from BTF, only signal_wake_up_state's out-of-line body is probed, not the copy inlined in
    # complete_signal that the kill goes through)
    [[ -n ${FROM_BTF:-} ]] ||
        grep -Eqx "wakeup name=signal_wake_up sig_pid=$b pid_name=sigprog resume=(-1|0|1) state_mask=TASK_INTERRUPTIBLE.*" sig.out

    read -r p t h < <(sed -n 's/^sigprog pid \([0-9]*\) tid \([0-9]*\) handler \(0x[0-9a-f]*\)$/\1 \2 \3/p' "$sched")
    read -r a b < <(sed -n 's/^child a \([0-9]*\) b \([0-9]*\)$/\1 \2/p' "$sched")
    [[ -n $p && -n $b ]]
    # a sleep: TASK_INTERRUPTIBLE, with TASK_FREEZABLE (0x2000) on 6.1's nanosleep
    grep -Eqx "ctxswitch out name=ctxswitch prev_pid=$p prev_tid=$p prev_task_name=sigprog prev_priority=120 prevtsk_state=(1|8193)" "$sched"
    # (on PREEMPT_RT the task may run boosted to a threaded irq handler's priority, 0 to 98, while it
    # holds a sleeping lock that handler waits for)
    if kernel_is_rt; then
        grep -Eqx "ctxswitch in next_pid=$p next_tid=$p next_task_name=sigprog next_priority=(120|[0-9]|[1-9][0-9]) nexttsk_state=0" "$sched"
    else
        has "$sched" "ctxswitch in next_pid=$p next_tid=$p next_task_name=sigprog next_priority=120 nexttsk_state=0"
    fi
    [[ -e no-cpu_on ]] || has "$sched" "cpu_on name=cpu_on prev_ok=1 prev_not_cur=1 idle=0"
    has "$sched" "cpu_off name=cpu_off prev_is_cur=1 next_ok=1 idle=0"
    has "$sched" "tick name=tick idle=0"
    has "$sched" "wakeup name=wakeup task_pid=$p task_tid=$p task_priority=120 task_cpu_ok=1 task_state=0"
    has "$sched" "wakeup_new name=wakeup_new task_pid=$a task_tid=$a task_priority=120 task_cpu_ok=1 task_state=0"
    # sigprog pins itself on CPU 0, then on CPU 1 (a guest with one CPU has nothing to migrate)
    (( $(cat ncpu) < 2 )) || has "$sched" "migrate name=migrate pid=$p priority=120 cpu_from=0 cpu_to=1"
    has "$sched" "process_fork name=process_fork parent_pid=$p child_pid=$a"
    has "$sched" "process_exit name=process_exit pid=$a priority=120"
    has "$sched" "process_wait name=process_wait pid=$a"
    has "$sched" "signal_send name=signal_send pid=$p signal_number=10"
    has "$sched" "create new_pid=$a new_tid=$a task_ok=1"
    has "$sched" "create new_pid=$b new_tid=$b task_ok=1"
    has "$sched" "start pid=$a ppid=$p pexecname=sigprog"
    has "$sched" "exec name=execve filename=\"/nonexistent/prog\" args=[\"prog\"]"
    has "$sched" "exec name=execve filename=\"/bin/true\" args=[\"true\", \"arg1\"]"
    has "$sched" "exec_complete name=execve errno=-2 success=0 retstr=-2 (ENOENT) execname=sigprog"
    has "$sched" "exec_complete name=execve errno=0 success=1 retstr=0 execname=true"
    has "$sched" "exit pid=$a code=768"
    has "$sched" "exit pid=$b code=15"
    has "$sched" "release released_pid=$a released_tid=$a pid=$a"

    # task_*: the sleep's pid, nice 7 (priority 20 + 7), uid 1234, running on this CPU; its parent sh
    k=$(sed -n 's/^sleep \([0-9]*\)$/\1/p' task.out)
    [[ -n $k ]]
    has task.out "task pid=$k tid=$k execname=sleep nice=7 prio=27 uid=1234 euid=1234 state=0 cpu_ok=1 parent_ok=1 pexecname=sh pid2execname=sleep pid2task_ok=1 nopid=0"
    # the module's kernel thread: stopped (thread id, nice 0), flushed its signals, returned 42
    k=$(cat ktpid)
    [[ -n $k ]]
    has kthread.out "kthread_stop name=kthread_stop thread_pid=$k thread_priority=120"
    has kthread.out "kthread_stop.return name=kthread_stop return_value=42"
    has kthread.out "flush name=flush_signals sig_pid=$k pid_name=schedtap_kt task_ok=1"

    # forktracker: both children, then the execs
    read -r p t h < <(sed -n 's/^sigprog pid \([0-9]*\) tid \([0-9]*\) handler \(0x[0-9a-f]*\)$/\1 \2 \3/p' "$forktrack")
    read -r a b < <(sed -n 's/^child a \([0-9]*\) b \([0-9]*\)$/\1 \2/p' "$forktrack")
    grep -Eqx ".{24} *: sigprog \($p\) created $a" "$forktrack"
    grep -Eqx ".{24} *: sigprog \($p\) created $b" "$forktrack"
    grep -Eqx ".{24} *: sigprog \($p\) is exec'ing \"/bin/true\"" "$forktrack"
    # sigmon SIGTERM: the header, sigprog's SIGTERM to child b, the shell's to its sleep
    read -r p t h < <(sed -n 's/^sigprog pid \([0-9]*\) tid \([0-9]*\) handler \(0x[0-9a-f]*\)$/\1 \2 \3/p' sigmon.out)
    read -r a b < <(sed -n 's/^child a \([0-9]*\) b \([0-9]*\)$/\1 \2/p' sigmon.out)
    local s
    s=$(sed -n 's/^sleeper \([0-9]*\)$/\1/p' sigmon.out)
    [[ -n $s ]]
    grep -Eqx 'SPID +SNAME +RPID +RNAME +SIGNUM +SIGNAME *' sigmon.out
    grep -Eqx "$p +sigprog +$b +sigprog +15 +SIGTERM *" sigmon.out
    grep -Eqx "[0-9]+ +sh +$s +sleep +15 +SIGTERM *" sigmon.out
    not grep -E 'SIGUSR|SIGCHLD' sigmon.out
    # switch counts: the header, then rows in decreasing order, sigprog's pid among them with at least 3
    read -r p t h < <(sed -n 's/^sigprog pid \([0-9]*\) tid \([0-9]*\) handler \(0x[0-9a-f]*\)$/\1 \2 \3/p' swcount.out)
    read -r a b < <(sed -n 's/^child a \([0-9]*\) b \([0-9]*\)$/\1 \2/p' swcount.out)
    [[ -n $a ]]
    has swcount.out "process_free name=process_free pid=$a priority=120"
    grep -Eqx 'EXECNAME +PID +SWITCHES' swcount.out
    awk -v p="$p" '$1 == "sigprog" && $2 == p && $3 >= 3 { ok = 1 } END { exit !ok }' swcount.out
    sed -n '/^EXECNAME/,$p' swcount.out | awk 'NR > 1 { if (NR > 2 && $3 > last) exit 1; last = $3 }'
}
