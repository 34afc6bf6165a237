# vm.oom_kill fires when a process overruns its memory cgroup's limit, with the victim's task (pid, command)
# Used by tests/run (issue 15): tapset/linux/memory.stp; the OOM report's stack dump is no crash for
# guest_crash_lines (tests/lib/guest.sh).

timeout_s=150

# oomhog: forks a child that moves itself into the cgroup given (cgroup v2, memory.max 16 MiB, no swap) and
# touches up to 256 MiB: the memory cgroup's OOM killer kills it. The parent prints its pid and fate.
write_oomhog() {
    cat >oomhog.c <<'CEOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int status, fd, i;
	pid_t child;

	if (argc != 2)
		return 2;
	child = fork();
	if (child == 0) {
		fd = open(argv[1], O_WRONLY);
		if (fd < 0 || write(fd, "0", 1) != 1)
			_exit(3);
		close(fd);
		for (i = 0; i < 256; i++) {
			char *p = malloc(1 << 20);
			if (!p)
				_exit(4);
			memset(p, i + 1, 1 << 20);
		}
		_exit(5);   /* not reached: killed on the way */
	}
	waitpid(child, &status, 0);
	printf("oomhog child %d signaled %d sig %d exit %d\n", (int)child, WIFSIGNALED(status),
	       WIFSIGNALED(status) ? WTERMSIG(status) : 0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
CEOF
    gcc -O1 -o oomhog oomhog.c
}

t_oom='
probe vm.oom_kill {
    printf("oom_kill|%s|%d|%s|%d\n", name, task_pid(task), task_execname(task), task == task_current())
}'

build() {
    write_oomhog
    $STAP -p4 -m t_oom -e "$t_oom" >/dev/null
}

guest() {
    local cg=/sys/fs/cgroup mounted=0
    if ! grep -q " $cg cgroup2 " /proc/mounts; then
        mount -t cgroup2 none "$cg"
        mounted=1
    fi
    echo +memory >"$cg/cgroup.subtree_control"
    mkdir -p "$cg/stapoom"
    echo $((16 << 20)) >"$cg/stapoom/memory.max"
    [[ ! -e $cg/stapoom/memory.swap.max ]] || echo 0 >"$cg/stapoom/memory.swap.max"
    staprun -c "./oomhog $cg/stapoom/cgroup.procs" t_oom.ko >oom.out 2>oom.err
    echo "t_oom exit $?"
    grep -E '^(oom_kill|oom_group_kill) ' "$cg/stapoom/memory.events"
    rmdir "$cg/stapoom"
    if ((mounted)); then umount "$cg"; fi
}

check() {
    grep -qx 't_oom exit 0' out || { cat out err; cat oom.err; return 1; }
    [[ ! -s oom.err ]] || { cat oom.err; return 1; }
    local child
    # the child was killed by SIGKILL (the OOM killer's signal)
    child=$(sed -n 's/^oomhog child \([0-9]*\) signaled 1 sig 9 exit -1$/\1/p' oom.out)
    [[ -n $child ]] || { cat oom.out; return 1; }
    # exactly one OOM kill, in our cgroup, of the child: its pid and command (the child ran the OOM killer
    # itself, charging the page it touched)
    grep -qx 'oom_kill 1' out || { cat out; return 1; }
    [[ $(grep '^oom_kill|' oom.out) == "oom_kill|oom_kill|$child|oomhog|1" ]] || { cat oom.out; return 1; }
    # the kernel's own report of it (whose stack dump the crash check forgives)
    grep -q "invoked oom-killer: " dmesg && grep -q "Killed process $child (oomhog)" dmesg || { cat dmesg; return 1; }
}
