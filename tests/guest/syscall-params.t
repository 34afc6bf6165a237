# syscall.* $param target variables ($fd, $count, $filename, $statbuf->st_size, $return, $$parms; in .return
# their values at entry), decoded
# argstr (signals, modes, mmap prot/flags, whence, clock ids, socket, access, fcntl, wait options), nd_syscall.*
# and syscall_any counts, all against what a test program (scprog) knows it did.
# Used by tests/run (issue 15): scripts/gen-syscall-tapset.sh's output tapset/linux/x86_64/syscalls.stp,
# tapset/linux/aux_syscalls.stp, translator/dwarf/dwvars.c (@param).

timeout_s=200
btf_rerun=1

# scprog: each call made with syscall() so that glibc neither picks another call nor changes the flags.
write_scprog() {
    cat >scprog.c <<'CEOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(void)
{
	char buf[64];
	struct stat st;
	struct timespec ts;
	long zfd, nfd, sfd;
	int i;

	memset(buf, 'x', sizeof(buf));
	memcpy(buf, "hello", 5);
	zfd = syscall(SYS_openat, AT_FDCWD, "/dev/zero", O_RDONLY | O_CLOEXEC);
	nfd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY | O_CLOEXEC);
	syscall(SYS_read, zfd, buf + 8, 37);
	syscall(SYS_write, nfd, buf, 23);
	syscall(SYS_lseek, zfd, 0L, SEEK_END);
	syscall(SYS_mmap, 0L, 8192L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1L, 0L);
	memset(&st, 0, sizeof(st));
	st.st_size = 4242;   /* what the probe reads at entry, before the kernel fills it */
	syscall(SYS_fstat, zfd, &st);
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	sfd = syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	syscall(SYS_fcntl, zfd, F_GETFL, 0L);
	syscall(SYS_access, "/dev/null", R_OK | W_OK);
	syscall(SYS_wait4, -1, 0L, WNOHANG, 0L);
	signal(SIGUSR1, SIG_IGN);
	syscall(SYS_kill, getpid(), SIGUSR1);
	for (i = 0; i < 17; i++)
		syscall(SYS_getppid);
	printf("scprog %d %ld %ld %ld\n", getpid(), zfd, nfd, sfd);
	return 0;
}
CEOF
    gcc -O1 -o scprog scprog.c
}

# t_scp: every call of scprog (pid() == target() && execname() == "scprog") with its variables, and the counts by name of syscall_any
t_scp='
global any, anyret, ppid_ok
probe syscall.openat {
    if (pid() == target() && execname() == "scprog")
        printf("openat|%s|%s|%s|%d|%d\n", filename, argstr, user_string($filename), $flags, $dfd)
}
probe nd_syscall.openat {
    if (pid() == target() && execname() == "scprog")
        printf("nd_openat|%s|%s\n", filename, argstr)
}
probe syscall.openat.return {
    if (pid() == target() && execname() == "scprog")
        printf("openat.return|%d|%d\n", $return, retval)
}
probe syscall.read {
    if (pid() == target() && execname() == "scprog" && $count == 37)
        printf("read|%d|%d|%d\n", $fd, $count, fd)
}
probe syscall.read.return {
    if (pid() == target() && execname() == "scprog" && $return == 37)
        printf("read.return|%d\n", $return)
}
probe syscall.read.return {
    if (pid() == target() && execname() == "scprog" && $count == 37)
        printf("read.return.entry|%d|%d|%d\n", $fd, $count, $return)
}
probe syscall.openat.return {
    if (pid() == target() && execname() == "scprog")
        printf("openat.return.entry|%s|%d|%d|%d\n", user_string($filename), $flags, $dfd, $return)
}
probe syscall.write.return {
    if (pid() == target() && execname() == "scprog" && $count == 23)
        printf("write.return.entry|%s|%s|%d\n", user_string_n($buf, 5), $$parms, $return)
}
probe syscall.write {
    if (pid() == target() && execname() == "scprog" && $count == 23)
        printf("write|%d|%d|%s|%s\n", $fd, $count, user_string_n($buf, 5), $$parms)
}
probe nd_syscall.write {
    if (pid() == target() && execname() == "scprog" && $count == 23)
        printf("nd_write|%d|%d\n", fd, $count)
}
probe syscall.lseek, syscall.mmap, syscall.clock_gettime, syscall.socket, syscall.fcntl, syscall.access,
      syscall.wait4, syscall.kill {
    if (pid() == target() && execname() == "scprog")
        printf("%s|%s\n", name, argstr)
}
probe syscall.rt_sigaction {
    if (pid() == target() && execname() == "scprog" && $sig == 10)
        printf("rt_sigaction|%s\n", substr(argstr, 0, 9))
}
probe syscall.kill {
    if (pid() == target() && execname() == "scprog")
        printf("kill.vars|%d|%d\n", $pid, $sig)
}
probe syscall.fstat {
    if (pid() == target() && execname() == "scprog")
        printf("fstat|%d|%d\nfstat.pretty|%s\n", $fd, $statbuf->st_size, $statbuf$)
}
probe syscall_any {
    if (pid() == target() && execname() == "scprog")
        any[name] <<< 1
}
probe syscall_any.return {
    if (pid() == target() && execname() == "scprog") {
        anyret[name] <<< 1
        if (name == "getppid" && retval == ppid())
            ppid_ok <<< 1
    }
}
probe end {
    foreach (n in any)
        printf("any|%s|%d\n", n, @count(any[n]))
    foreach (n in anyret)
        printf("anyret|%s|%d\n", n, @count(anyret[n]))
    printf("ppid_ok|%d\n", @count(ppid_ok))
}'

build() {
    write_scprog
    $STAP -p4 -m t_scp -e "$t_scp" >/dev/null
    # an unknown $x names the parameters there are; parameters are read-only
    not $STAP -p2 -e 'probe syscall.write { println($nope) }' 2>err1
    grep -q "semantic error: '\$nope' is not a parameter of this probe (its parameters: \$fd, \$buf, \$count)" err1
    not $STAP -p2 -e 'probe syscall.write { $fd = 3 }' 2>err2
    grep -q "semantic error: the parameter '\$fd' cannot be assigned" err2
    not $STAP -p2 -e 'probe syscall.write { println($count->x) }' 2>err3
    grep -q "semantic error: '\$count' is not a pointer (size_t): '->' cannot be applied to it" err3
    not $STAP -p2 -e 'function f() { @param("$x", 1) } probe begin { f() }' 2>err4
    grep -q "@param declares a target variable of a probe" err4 || cat err4
    # .return: the kretprobe saves values at entry only when the body uses a parameter; @entry in
    # kprobe.function(...).return probes (one body of several shares its entry values), not at an entry
    $STAP -p3 -e 'probe syscall.read.return { println($count) }' >p3count
    grep -q '\.ret_entry = stp_kretprobe_entry_[0-9]*, \.entry_size = 8' p3count
    $STAP -p3 -e 'probe syscall.read.return { println(retval) }' >p3plain
    not grep -q ret_entry p3plain
    $STAP -p3 -e 'probe kprobe.function("ksys_read").return, kprobe.function("ksys_write").return { println(@entry(1)) }' >p3shared
    grep -q '^STP_KRETPROBE_ENTRY_TRAMPOLINE(0, 0)$' p3shared && grep -q '^STP_KRETPROBE_ENTRY_TRAMPOLINE(1, 0)$' p3shared
    not $STAP -p2 -e 'probe kprobe.function("ksys_read"), kprobe.function("ksys_write").return { println(@entry(1)) }' 2>err5
    grep -q "@entry is only available in .return probes" err5
}

guest() {
    staprun -c ./scprog t_scp.ko >scp.out 2>scp.err
    echo "t_scp exit $?"
}

check() {
    grep -qx 't_scp exit 0' out || { cat out; cat scp.err; return 1; }
    [[ ! -s scp.err ]] || { cat scp.err; return 1; }   # (no skipped probes either)
    local pid zfd nfd sfd
    read -r _ pid zfd nfd sfd < <(grep '^scprog ' scp.out)
    [[ -n $pid && -n $sfd ]] || { cat scp.out; return 1; }
    # openat: the tapset's quoted filename and argstr, the raw $filename, $flags (O_RDONLY|O_CLOEXEC = 0x80000,
    # O_WRONLY|O_CLOEXEC = 0x80001) and $dfd (AT_FDCWD)
    [[ $(grep '^openat|"/dev/' scp.out) == 'openat|"/dev/zero"|AT_FDCWD, "/dev/zero", O_RDONLY|O_CLOEXEC|/dev/zero|524288|-100
openat|"/dev/null"|AT_FDCWD, "/dev/null", O_WRONLY|O_CLOEXEC|/dev/null|524289|-100' ]] || { grep '^openat|' scp.out; return 1; }
    [[ $(grep '^nd_openat|"/dev/' scp.out) == 'nd_openat|"/dev/zero"|AT_FDCWD, "/dev/zero", O_RDONLY|O_CLOEXEC
nd_openat|"/dev/null"|AT_FDCWD, "/dev/null", O_WRONLY|O_CLOEXEC' ]] || { grep '^nd_openat|' scp.out; return 1; }
    grep -qx "openat.return|$zfd|$zfd" scp.out && grep -qx "openat.return|$nfd|$nfd" scp.out ||
        { grep '^openat.return' scp.out; return 1; }
    # read 37 bytes of fd zfd, write 23 bytes ("hello...") to fd nfd; $$parms lists the parameters
    grep -qx "read|$zfd|37|$zfd" scp.out && grep -qx 'read.return|37' scp.out || { grep '^read' scp.out; return 1; }
    grep -Eqx "write\|$nfd\|23\|hello\|fd=0x$(printf %x "$nfd") buf=0x[0-9a-f]+ count=0x17" scp.out ||
        { grep '^write' scp.out; return 1; }
    # the .return probes: the arguments' values at entry ($fd, $count, $filename...), saved by the kretprobe
    grep -qx "read.return.entry|$zfd|37|37" scp.out || { grep '^read.return' scp.out; return 1; }
    grep -qx "openat.return.entry|/dev/zero|524288|-100|$zfd" scp.out &&
        grep -qx "openat.return.entry|/dev/null|524289|-100|$nfd" scp.out || { grep '^openat.return' scp.out; return 1; }
    grep -Eqx "write.return.entry\|hello\|fd=0x$(printf %x "$nfd") buf=0x[0-9a-f]+ count=0x17\|23" scp.out ||
        { grep '^write.return' scp.out; return 1; }
    grep -qx "nd_write|$nfd|23" scp.out || { grep '^nd_write' scp.out; return 1; }
    # decoded argstr
    grep -qx "lseek|$zfd, 0, SEEK_END" scp.out || { grep '^lseek' scp.out; return 1; }
    grep -qx 'mmap|0x0000000000000000, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0' scp.out ||
        { grep '^mmap' scp.out; return 1; }
    grep -Eqx 'clock_gettime\|CLOCK_MONOTONIC, 0x[0-9a-f]{16}' scp.out || { grep '^clock' scp.out; return 1; }
    grep -qx 'socket|PF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0' scp.out || { grep '^socket' scp.out; return 1; }
    grep -qx "fcntl|$zfd, F_GETFL, 0" scp.out || { grep '^fcntl' scp.out; return 1; }
    grep -qx 'access|"/dev/null", R_OK|W_OK' scp.out || { grep '^access' scp.out; return 1; }
    grep -qx 'wait4|-1, 0x0000000000000000, WNOHANG, 0x0000000000000000' scp.out || { grep '^wait4' scp.out; return 1; }
    grep -qx "kill|$pid, SIGUSR1" scp.out && grep -qx "kill.vars|$pid|10" scp.out || { grep '^kill' scp.out; return 1; }
    grep -qx 'rt_sigaction|SIGUSR1, ' scp.out || { grep '^rt_sig' scp.out; return 1; }
    # $statbuf->st_size: the user's struct stat, read at entry
    grep -qx "fstat|$zfd|4242" scp.out || { grep '^fstat' scp.out; return 1; }
    grep -Eqx 'fstat.pretty\|\{.*[{ ]\.st_size=4242, .*\}' scp.out || { grep '^fstat' scp.out; return 1; }
    # syscall_any: exactly the program's 17 getppid calls, one kill, its two openat; each returns ppid()
    grep -qx 'any|getppid|17' scp.out && grep -qx 'anyret|getppid|17' scp.out && grep -qx 'ppid_ok|17' scp.out ||
        { grep -E '^(any|anyret|ppid_ok)\|' scp.out; return 1; }
    grep -Eqx 'any\|openat\|[0-9]+' scp.out && grep -qx 'any|socket|1' scp.out && grep -qx 'any|kill|1' scp.out ||
        { grep '^any' scp.out; return 1; }
    # names only from the table (no syscall_N for this program's calls)
    not grep -q '^any|syscall_' scp.out
}
