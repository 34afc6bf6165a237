# signal.check_ignored, .handle.return, .pending.return, .force_segv fire under a workload that ignores, handles and fails to handle signals
# Used by tests/run (issue 15): tapset/linux/signal.stp (the less common signal.* aliases).

timeout_s=120

# sigrare: SIGUSR2 ignored and sent to itself (sig_ignored), a SIGUSR1 handler run (signal_setup_done
# succeeds), sigpending(); then a child whose SIGUSR1 handler runs on an alternate stack it cannot
# write (PROT_NONE): the frame fails, the kernel forces a SIGSEGV that kills it.
write_sigrare() {
    cat >sigrare.c <<'CEOF'
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile sig_atomic_t got;
static void on_usr1(int sig) { got = sig; }
int main(void)
{
	struct sigaction sa;
	sigset_t pend;
	stack_t ss;
	struct rlimit nocore = { 0, 0 };
	int status;
	pid_t child;

	signal(SIGUSR2, SIG_IGN);
	kill(getpid(), SIGUSR2);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
	sigemptyset(&pend);
	sigpending(&pend);
	printf("sigrare pid %d got %d\n", (int)getpid(), (int)got);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		setrlimit(RLIMIT_CORE, &nocore);
		ss.ss_sp = mmap(NULL, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ss.ss_size = 65536;
		ss.ss_flags = 0;
		sigaltstack(&ss, NULL);
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGUSR1, &sa, NULL);
		kill(getpid(), SIGUSR1);
		_exit(0);   /* not reached: the SIGSEGV kills it */
	}
	waitpid(child, &status, 0);
	printf("child %d signaled %d sig %d\n", (int)child, WIFSIGNALED(status), WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return 0;
}
CEOF
    gcc -O1 -o sigrare sigrare.c
}

t_sigrare='
probe signal.check_ignored {
    if (pid_name == "sigrare" && sig == 12)
        printf("check_ignored|%s|%d|%s|%d|%s\n", name, sig, sig_name, sig_pid, pid_name)
}
probe signal.handle.return {
    if (execname() == "sigrare")
        printf("handle.return|%s|%d|%s|%d|%s|%d\n", name, sig, sig_name, retval, retstr, pid())
}
probe signal.pending.return {
    if (execname() == "sigrare")
        printf("pending.return|%s|%d|%s\n", name, retval, retstr)
}
probe signal.force_segv {
    if (execname() == "sigrare")
        printf("force_segv|%s|%d|%s|%d|%s\n", name, sig, sig_name, sig_pid, pid_name)
}
'
# force_sigsegv's return is probed on its out-of-line copy: the signal-frame path here has it inlined
t_segvret='probe signal.force_segv.return { if (execname() == "sigrare") printf("force_segv.return|%s|%s\n", name, retstr) }'

build() {
    write_sigrare
    $STAP -p4 -m t_sigrare -e "$t_sigrare" >/dev/null
    $STAP -p4 -m t_segvret -e "$t_segvret" >/dev/null
    # sig_ignored is always inlined on this kernel: its .return matches nothing (and says so), with ? nothing
    $STAP -p2 -e 'probe signal.check_ignored.return ? { println(retstr) } probe begin { exit() }' >/dev/null
    for a in signal.check_ignored signal.handle.return signal.pending.return signal.force_segv signal.force_segv.return; do
        $STAP -L "$a"
    done >L.out
}

guest() {
    staprun -c ./sigrare t_sigrare.ko >rare.out 2>rare.err
    echo "t_sigrare exit $?"
}

check() {
    grep -qx 't_sigrare exit 0' out || { cat out; cat rare.err; return 1; }
    [[ ! -s rare.err ]] || { cat rare.err; return 1; }
    grep -qx 'signal.check_ignored name:string sig:long sig_name:string sig_pid:long pid_name:string' L.out || { cat L.out; return 1; }
    grep -qx 'signal.force_segv.return name:string retstr:string' L.out || { cat L.out; return 1; }
    local pid child
    pid=$(sed -n 's/^sigrare pid \([0-9]*\) got 10$/\1/p' rare.out)
    child=$(sed -n 's/^child \([0-9]*\) signaled 1 sig 11$/\1/p' rare.out)
    [[ -n $pid && -n $child ]] || { cat rare.out; return 1; }
    # SIGUSR2, ignored, sent to itself
    grep -qx "check_ignored|sig_ignored|12|SIGUSR2|$pid|sigrare" rare.out || { grep '^check_ignored' rare.out; return 1; }
    # the parent's SIGUSR1 frame written (0); the child's not (1), then SIGSEGV forced on it for SIGUSR1
    [[ $(grep '^handle.return|' rare.out) == "handle.return|signal_handle|10|SIGUSR1|0|0|$pid
handle.return|signal_handle|10|SIGUSR1|1|1|$child" ]] || { grep '^handle.return' rare.out; return 1; }
    [[ $(grep '^force_segv' rare.out) == "force_segv|force_sigsegv|10|SIGUSR1|$child|sigrare" ]] ||
        { grep '^force_segv' rare.out; return 1; }
    grep -qx 'pending.return|sigpending|0|0' rare.out || { grep '^pending' rare.out; return 1; }
}
