# seed corpus, syscall tapset: 005, 006, 020 ($fd/$count in syscall.write), 027 (syscall.read fd and $return),
# 036, 047, 080, 081 (syscall.open and .return: filename, flags, $return) each printing its INDEX.md row's shape.
# Used by tests/run (issue 15). The corpus lives beside the repository (SEED_CORPUS, default TOP/../shared/seed-scripts);
# without it, or without the kernel's DWARF, the case is skipped.

timeout_s=200
btf_rerun=1

# openprog: open(2) itself (glibc would call openat): /dev/null read-only, /dev/null O_WRONLY|O_APPEND|O_CREAT,
# a missing file; then sleeps argv[1] seconds (081 reports every second).
write_openprog() {
    cat >openprog.c <<'CEOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long fd;

	printf("openprog %d\n", getpid());
	fflush(stdout);
	fd = syscall(SYS_open, "/dev/null", O_RDONLY);
	close(fd);
	fd = syscall(SYS_open, "/dev/null", O_WRONLY | O_APPEND | O_CREAT, 0644);
	close(fd);
	syscall(SYS_open, "/stap-not-exists", O_RDONLY);
	if (argc > 1)
		sleep(atoi(argv[1]));
	return 0;
}
CEOF
    gcc -O1 -o openprog openprog.c
}

build() {
    local n
    seed_need 005 006 020 027 036 047 080 081
    write_openprog
    for n in 005 006 020 027 036 047 080; do
        $STAP -p4 -m seed_$n "$(seed_file $n)" >/dev/null
    done
    $STAP -p4 -m seed_081 "$(seed_file 081)" 1 >/dev/null
}

guest() {
    seed_run 005 'dd if=/dev/zero of=/dev/null bs=7 count=3'
    seed_run 006 'dd if=/dev/zero of=/dev/null count=1'
    seed_run 020 'dd if=/dev/zero of=/dev/null count=1'
    seed_run 027 'dd if=/dev/zero of=/dev/null bs=7 count=3'
    seed_run 036 './openprog'
    seed_run 047 './openprog'
    seed_run 080 './openprog'
    seed_run 081 './openprog 3'
}

# pid_of N: openprog's pid in N.out
pid_of() { sed -n 's/^openprog \([0-9]*\)$/\1/p' "$1.out"; }

check() {
    local n p
    for n in 005 006 020 027 036 047 080 081; do
        [[ $(cat $n.rc) == 0 ]] || { echo "seed $n: status $(cat $n.rc)"; cat $n.err; return 1; }
    done
    # 005: one "<fd>" line per write() system-wide; dd's three writes to fd 1 among them
    not grep -vxE -- '-?[0-9]+' 005.out
    (( $(grep -cx 1 005.out) >= 3 ))
    # 006, 020: "Written N bytes" for each write() of the dd command, no newline between them: dd's 512-byte
    # block, then its statistics on stderr
    for n in 006 020; do
        [[ $(wc -l <$n.out) == 0 ]] || { cat $n.out; return 1; }
        grep -Eqx '(Written [0-9]+ bytes)+' $n.out || { cat $n.out; return 1; }
        [[ $(cat $n.out) == 'Written 512 bytes'* ]] || { cat $n.out; return 1; }
        (( $(grep -o 'Written [0-9]* bytes' $n.out | wc -l) >= 2 ))
    done
    # 027: "read <fd> --> <bytes>" for every read() system-wide; dd's three 7-byte reads of fd 0
    not grep -vxE 'read -?[0-9]+ --> -?[0-9]+' 027.out
    (( $(grep -cx 'read 0 --> 7' 027.out) >= 3 ))
    # 036: "=> uid: U pid: P open: PATH T" and "<= uid: U pid: P RET T" lines; openprog's three opens
    p=$(pid_of 036)
    [[ -n $p ]]
    not grep -vxE 'openprog [0-9]+|=> uid: [0-9]+ pid: [0-9]+ open: .* [0-9]+|<= uid: [0-9]+ pid: [0-9]+ -?[0-9]+ [0-9]+' 036.out
    [[ $(grep -cE "^=> uid: 0 pid: $p open: \"/dev/null\" [0-9]+$" 036.out) == 2 ]] || { cat 036.out; return 1; }
    grep -Eqx "=> uid: 0 pid: $p open: \"/stap-not-exists\" [0-9]+" 036.out
    [[ $(grep -cE "^<= uid: 0 pid: $p [0-9]+ [0-9]+$" 036.out) == 2 ]]
    grep -Eqx "<= uid: 0 pid: $p -2 [0-9]+" 036.out
    # 047: the same for the -c target only, "ret: R" on the return lines
    p=$(pid_of 047)
    [[ -n $p ]]
    diff <(grep -v '^openprog ' 047.out | sed -E 's/ [0-9]+$/ NS/') - <<EOF || { cat 047.out; return 1; }
=> uid: 0 pid: $p open: "/dev/null" NS
<= uid: 0 pid: $p ret: 3 NS
=> uid: 0 pid: $p open: "/dev/null" NS
<= uid: 0 pid: $p ret: 3 NS
=> uid: 0 pid: $p open: "/stap-not-exists" NS
<= uid: 0 pid: $p ret: -2 NS
EOF
    # 080: "exec[pid(uid:gid)] open("path", FLAGS) = fd" per open()
    p=$(pid_of 080)
    [[ -n $p ]]
    not grep -vxE 'openprog [0-9]+|.*\[[0-9]+\([0-9]+:[0-9]+\)\] open\(.*, O_(RDONLY|WRONLY|RDWR)(\|O_APPEND)?(\|O_CREAT)?\) = -?[0-9]+' 080.out
    diff <(grep "^openprog\[$p(" 080.out) - <<EOF || { cat 080.out; return 1; }
openprog[$p(0:0)] open("/dev/null", O_RDONLY) = 3
openprog[$p(0:0)] open("/dev/null", O_WRONLY|O_APPEND|O_CREAT) = 3
openprog[$p(0:0)] open("/stap-not-exists", O_RDONLY) = -2
EOF
    # 081: every second a date line, the header and rows per (execname, pid); openprog's rows add up to
    # its 1 create, 2 opens and 2 successes (a report may fall between its calls)
    p=$(pid_of 081)
    [[ -n $p ]]
    not grep -vxE 'openprog [0-9]+|[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}|    EXECNAME    PID CREATE   OPEN SUCCESS| *[^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ [0-9]+' 081.out
    (( $(grep -cx '    EXECNAME    PID CREATE   OPEN SUCCESS' 081.out) >= 2 ))
    (( $(grep -cE '^[A-Z][a-z]{2} [A-Z][a-z]{2} ' 081.out) >= 2 ))
    [[ $(awk -v p="$p" '$1 == "openprog" && $2 == p { c += $3; o += $4; s += $5 } END { print c, o, s }' 081.out) == '1 2 2' ]] ||
        { cat 081.out; return 1; }
}
