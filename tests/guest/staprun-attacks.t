# staprun-attacks: a setuid-root staprun attacked by stapusr members: swapped stapio, other users' runs (-A/-d, a stopped
# staprun's late removal), SIGCHLD ignored, -b and one buffer budget per user, setarch, root's -o into others' links, stapio's ids
# Used by tests/run (guest/staprun-attacks). Each case asserts the refusal AND that nothing changed; needs build() as root.

timeout_s=600

build() {
    if (( EUID != 0 )); then
        echo "build() not run as root: no setuid staprun to attack"
        return 77
    fi
    $STAP -p4 -m sa_run -e 'probe begin { println("ran"); exit() }' >/dev/null
    $STAP -p4 -m sa_endless -e '
global n
probe begin { println("begin") }
probe timer.ms(50) { n++ }
probe procfs("state").read { $value = sprintf("ticks>0 %d\n", n > 0) }
probe end { printf("end ticks>0: %d\n", n > 0) }' >/dev/null
    # the attacker's stapio: would leave a marker (and its ids) if it ever ran
    printf '#!/bin/sh\nid >/lib/modules/stap-attacks/marks/evil-ran\n' >evil-stapio
    chmod 755 evil-stapio
    # the race's flipper: DIR/stapio becomes a symbolic link to STAPIO, then to "evil", endlessly
    # (symlink + rename, no fork; a pause between pairs, or staprun's lookups wait on the directory)
    cat >flipper.c <<'EOC'
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc != 3 || chdir(argv[1]) != 0)
		return 2;
	for (;;) {
		unlink("s1");
		unlink("s2");
		if (symlink(argv[2], "s1") || rename("s1", "stapio") || symlink("evil", "s2") ||
		    rename("s2", "stapio"))
			return perror("flipper"), 1;
		usleep(1000); /* lets staprun's own lookups of the directory in */
	}
}
EOC
    cc -O2 -Wall -Wextra -Werror -o flipper flipper.c
    # pipefill ROOM GO CMD...: CMD's stderr a pipe with only ROOM bytes free, so CMD blocks in a
    # write after ROOM bytes (as a member can make a setuid staprun -v block); drained (the filler
    # dropped, the rest to stdout) once file GO exists; exits with CMD's status
    cat >pipefill.c <<'EOC'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	static char buf[65536];
	int p[2], status;
	long room, cap, fill, left;
	pid_t pid;
	ssize_t n;

	if (argc < 4 || pipe(p) < 0)
		return 2;
	room = atol(argv[1]);
	cap = fcntl(p[1], F_GETPIPE_SZ);
	fill = cap - room;
	for (left = fill; left > 0; left -= n)
		if ((n = write(p[1], buf, left < 4096 ? left : 4096)) <= 0)
			return 2;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	close(p[1]);
	while (access(argv[2], F_OK) != 0)
		usleep(20000);
	while ((n = read(p[0], buf, sizeof(buf))) > 0) {
		long skip = fill > n ? n : fill;
		fill -= skip;
		if (n > skip && write(1, buf + skip, (size_t)(n - skip)) < 0)
			return 2;
	}
	if (waitpid(pid, &status, 0) < 0)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
EOC
    cc -O2 -Wall -Wextra -Werror -o pipefill pipefill.c
    # sigign CMD...: CMD run with SIGCHLD ignored (an ignored disposition survives exec)
    printf '#include <signal.h>\n#include <unistd.h>\nint main(int c, char **v) { (void)c;'\
' signal(SIGCHLD, SIG_IGN); execvp(v[1], v + 1); return 127; }\n' >sigign.c
    cc -O2 -Wall -Wextra -Werror -o sigign sigign.c
    # the budget's modules: one build, copies under other names (every "sa_bud0" in the file renamed)
    $STAP -p4 -m sa_bud0 -e 'probe begin { println("bud") }' >/dev/null
    local k
    for k in 1 2 3 4 5 6 7 8 9; do
        perl -e 'local $/; my $d = <STDIN>; my $n = ($d =~ s/sa_bud0/sa_bud$ARGV[0]/g);
                 $n >= 2 or die "sa_bud0 found $n times"; print $d' "$k" <sa_bud0.ko >"sa_bud$k.ko"
    done
    # a module whose own buffer size (stap -s) is stapusr's largest: a load without -b counts it
    $STAP -p4 -s 64 -m sa_budd -e 'probe begin { println("bud") }' >/dev/null
    getent group stapusr | cut -d: -f3 >stapusr.gid
    getent group stapdev | cut -d: -f3 >stapdev.gid
}

# has FILE TEXT: FILE contains TEXT (grep -qF of a one-line TEXT), in bash alone: each grep, cat, awk or
# seq started in the guest costs the host 80-150 ms of CPU under TCG, and this case checks hundreds of things.
has() {
    local s=
    IFS= read -r -d '' s 2>/dev/null <"$1" || true
    [[ $s == *"$2"* ]]
}

# has_line FILE START [PART]: a line of FILE starts with START (and has PART further on), in bash alone.
has_line() {
    local line
    while IFS= read -r line || [[ -n $line ]]; do
        [[ $line == "$2"*"${3:-}"* ]] && return 0
    done 2>/dev/null <"$1"
    return 1
}

# cpus_mem: cpus, the number of possible CPUs (/sys/devices/system/cpu/possible), and avail, the memory
# available in MB (/proc/meminfo's MemAvailable), in bash alone.
cpus_mem() {
    local p k v _
    read -r p </sys/devices/system/cpu/possible
    cpus=$(( ${p##*[-,]} + 1 ))
    while read -r k v _; do
        [[ $k == MemAvailable: ]] && { avail=$((v / 1024)); return 0; }
    done </proc/meminfo
    return 1
}

# status_ids PID: the Uid:, Gid: and Groups: lines of /proc/PID/status and CapEff's value, as variables
# uid, gid, groups (each a space-separated list) and capeff.
status_ids() {
    local -a f
    uid= gid= groups= capeff=
    while read -ra f; do
        case ${f[0]} in
            Uid:) uid=${f[*]:1} ;;
            Gid:) gid=${f[*]:1} ;;
            Groups:) groups=${f[*]:1} ;;
            CapEff:) capeff=${f[1]} ;;
        esac
    done <"/proc/$1/status"
}

# refused FILE WANT CMD...: CMD exits 1 and its stderr (kept in FILE.err) contains WANT.
refused() {
    local file=$1 want=$2 rc=0
    shift 2
    "$@" >"$file.out" 2>"$file.err" || rc=$?
    if [[ $rc != 1 ]] || ! has "$file.err" "$want"; then
        echo "$file: $* gave exit $rc, wanted 1 and \"$want\":"; cat "$file.out" "$file.err"
        return 1
    fi
}

# owner_is NAME UID: /proc/systemtap/NAME, its files and _stp_owner_uid all say UID.
owner_is() {
    local v d=/proc/systemtap/$1
    read -r v </sys/module/"$1"/parameters/_stp_owner_uid
    [[ $v == "$2" ]] || { echo "$1: _stp_owner_uid $v, wanted $2"; return 1; }
    # one stat for the three
    v=$(stat -c %u "$d" "$d/.cmd" "$d/trace0")
    [[ $v == "$2"$'\n'"$2"$'\n'"$2" ]] || { echo "$d, .cmd, trace0: owners $v, wanted $2"; return 1; }
}

# attach_and_end WHO... -- NAME OUT: `WHO staprun -A NAME` attaches, runs ~1 s, ends on SIGINT
# to its stapio: exit 0, the end probe's line in OUT, the module gone.
attach_and_end() {
    local -a who=()
    while [[ $1 != -- ]]; do who+=("$1"); shift; done
    local name=$2 out=$3 pid io rc=0
    "${who[@]}" -A "$name" >"$out" 2>"$out.err" & pid=$!
    io=$(stapio_of $pid)
    nap 1
    kill -INT "$io"
    wait $pid || rc=$?
    [[ $rc == 0 ]] || { echo "${who[*]} -A $name: exit $rc"; cat "$out.err"; return 1; }
    file_has "$out" '^end ticks>0: 1$'
    wait_gone "$name"
}

# wait_gone NAME: until module NAME is unloaded (5 s at most).
wait_gone() {
    local i
    for ((i = 0; i < 50; i++)); do
        loaded "$1" || return 0
        nap 0.1
    done
    echo "module $1 still loaded"
    return 1
}

# In a private mount namespace: /lib/modules a tmpfs of root's; in it stap-attacks/ (directories
# root's alone up to /, wherever the clone is: /tmp and /var/tmp are anyone's) the setuid staprun and its
# stapio in bin/, a directory of user 65534's (u/) and one for the evil stapio's marker (marks/);
# /lib/modules a tmpfs with the installed modules.
attacks() {
    local usr=$1 dev=$2 dir=/lib/modules/$KVER/systemtap pid io rc need avail cpus
    local -a u1=(setpriv --reuid=65534 --regid=65534 --groups="$usr")
    local -a u2=(setpriv --reuid=65533 --regid=65533 --groups="$usr")
    local -a d1=(setpriv --reuid=65532 --regid=65532 --groups="$dev")
    set -E
    trap 'echo "FAILED at line $LINENO: $BASH_COMMAND"' ERR
    mount -t tmpfs -o mode=0755 stapattacks /lib/modules
    mkdir -p "$dir"
    cp sa_run.ko sa_endless.ko "$dir"/
    local sa
    sa=$(readlink -f /lib/modules)/stap-attacks   # its real path (/lib is /usr/lib): what staprun names
    mkdir -m 755 "$sa"
    mkdir -p "$sa/bin" "$sa/u" "$sa/rootonly" "$sa/marks"
    chmod 1777 "$sa/marks"
    cp "$TOP/build/bin/staprun" "$TOP/build/bin/stapio" "$sa/bin/"
    chmod 4755 "$sa/bin/staprun"
    chown 65534:65534 "$sa/u"
    chmod 700 "$sa/rootonly"
    local S=$sa/bin/staprun

    echo "== hard-linked staprun, swapped stapio (at ${SECONDS}s)"
    echo 0 >/proc/sys/fs/protected_hardlinks
    "${u1[@]}" ln "$S" "$sa/u/staprun"
    [[ $(stat -c %h "$S") == 2 && -u $sa/u/staprun ]]
    "${u1[@]}" cp evil-stapio "$sa/u/stapio"
    refused hl-own "refusing to run $sa/u/stapio for a setuid staprun: it is not owned by root" \
        "${u1[@]}" "$sa/u/staprun" sa_run
    [[ ! -e $sa/marks/evil-ran ]]
    not loaded sa_run
    # root's own stapio, hard-linked next to it: the directory is the user's
    "${u1[@]}" rm "$sa/u/stapio"
    "${u1[@]}" ln "$sa/bin/stapio" "$sa/u/stapio"
    refused hl-dir "refusing to run $sa/u/stapio for a setuid staprun: directory $sa/u is not owned by root" \
        "${u1[@]}" "$sa/u/staprun" sa_run
    not loaded sa_run
    # a symbolic link to the evil one
    "${u1[@]}" rm "$sa/u/stapio"
    "${u1[@]}" cp evil-stapio "$sa/u/evil"
    "${u1[@]}" ln -s evil "$sa/u/stapio"
    refused hl-link "refusing to run $sa/u/stapio for a setuid staprun: it is a symbolic link" \
        "${u1[@]}" "$sa/u/staprun" sa_run
    [[ ! -e $sa/marks/evil-ran ]]
    not loaded sa_run
    # the race: u/stapio flips between a symbolic link to root's stapio and one to the evil
    # program while staprun runs (the check and the exec must see the same file)
    # (the 40 runs from one shell of the member's, the checks in bash: no setpriv or grep per run)
    "${u1[@]}" "$CASE_DIR/flipper" "$sa/u" "$sa/bin/stapio" & local flipper=$!
    local i
    rc=0
    "${u1[@]}" bash -c 'for ((i = 1; i <= 40; i++)); do
            rc=0
            "$1/staprun" sa_run >"$1/race.out" 2>"$1/race.err" || rc=$?
            [[ $rc == 1 ]] && has "$1/race.err" "refusing to run $1/stapio for a setuid staprun" ||
                { echo "race run $i: exit $rc"; cat "$1/race.err"; exit 1; }
        done
        echo "race: $((i - 1)) runs refused"' race "$sa/u" || rc=$?
    kill $flipper
    wait $flipper 2>/dev/null || true
    (( rc == 0 ))
    echo "(at ${SECONDS}s)"
    [[ ! -e $sa/marks/evil-ran ]]
    not loaded sa_run
    "${u1[@]}" rm -f "$sa/u/staprun"
    echo 1 >/proc/sys/fs/protected_hardlinks

    echo "== stapio's ids (at ${SECONDS}s)"
    "${u1[@]}" "$S" sa_endless >ids.out 2>ids.err & pid=$!
    io=$(stapio_of $pid)
    local uid gid groups capeff comm state
    status_ids "$io"
    [[ $uid == "65534 65534 65534 65534" && $gid == "65534 65534 65534 65534" ]]
    [[ $groups == "$usr" && $capeff == 0000000000000000 ]]
    read -r comm </proc/"$io"/comm
    [[ $comm == stapio ]]
    owner_is sa_endless 65534
    # the script's procfs files are the run owner's too
    [[ $(stat -c %u /proc/systemtap/sa_endless/state) == 65534 ]]
    state=$("${u1[@]}" cat /proc/systemtap/sa_endless/state)
    [[ $state =~ ^ticks\>0\ [01]$ ]]
    kill -INT "$io"
    rc=0; wait $pid || rc=$?
    [[ $rc == 0 ]] || { echo "ids run: exit $rc"; cat ids.err; return 1; }
    file_has ids.out '^end ticks>0: 1$'
    wait_gone sa_endless

    echo "== root's detached run (at ${SECONDS}s)"
    staprun -L sa_endless.ko >root-L.out 2>root-L.err
    owner_is sa_endless 0
    refused root-A "may not attach to module sa_endless: its run belongs to uid 0; only that user and root may attach to it or remove it" \
        "${u1[@]}" "$S" -A sa_endless
    loaded sa_endless
    refused root-d "may not remove module sa_endless: its run belongs to uid 0" "${u1[@]}" "$S" -d sa_endless
    loaded sa_endless
    refused root-dev-A "may not attach to module sa_endless: its run belongs to uid 0" "${d1[@]}" "$S" -A sa_endless
    refused root-dev-d "may not remove module sa_endless: its run belongs to uid 0" "${d1[@]}" "$S" -d sa_endless
    # its files are root's alone: not readable around staprun either
    not "${u1[@]}" cat /proc/systemtap/sa_endless/trace0 2>/dev/null
    not "${u1[@]}" cat /proc/systemtap/sa_endless/state 2>/dev/null
    not "${u1[@]}" sh -c 'echo stop >/proc/systemtap/sa_endless/.cmd' 2>/dev/null
    loaded sa_endless
    # the run is intact: root attaches and ends it normally
    attach_and_end staprun -- sa_endless root-A2.out

    echo "== another user's detached run (at ${SECONDS}s)"
    "${u2[@]}" "$S" -L sa_endless >u2-L.out 2>u2-L.err
    owner_is sa_endless 65533
    refused u2-A "may not attach to module sa_endless: its run belongs to uid 65533" "${u1[@]}" "$S" -A sa_endless
    refused u2-d "may not remove module sa_endless: its run belongs to uid 65533" "${u1[@]}" "$S" -d sa_endless
    refused u2-dev-d "may not remove module sa_endless: its run belongs to uid 65533" "${d1[@]}" "$S" -d sa_endless
    not "${u1[@]}" cat /proc/systemtap/sa_endless/trace0 2>/dev/null
    loaded sa_endless
    # a failed -A of the owner's (output not writable) leaves the run alone
    refused u2-A-o "did not attach to module sa_endless: its run was left as it was" \
        "${u2[@]}" "$S" -o "$sa/rootonly/out" -A sa_endless
    loaded sa_endless
    [[ ! -e $sa/rootonly/out ]]
    # the owner attaches; a second -A meanwhile fails (busy) and leaves the first one's run going
    "${u2[@]}" "$S" -A sa_endless >u2-A1.out 2>u2-A1.err & pid=$!
    io=$(stapio_of $pid)
    refused u2-A-busy "did not attach to module sa_endless: its run was left as it was" \
        "${u2[@]}" "$S" -A sa_endless
    has u2-A-busy.err "another stapio is attached"
    loaded sa_endless
    kill -0 "$io"
    nap 1
    kill -INT "$io"
    rc=0; wait $pid || rc=$?
    [[ $rc == 0 ]] || { echo "u2 -A: exit $rc"; cat u2-A1.err; return 1; }
    file_has u2-A1.out '^end ticks>0: 1$'
    wait_gone sa_endless
    # the owner's -d, and root's -d of a user's run
    "${u2[@]}" "$S" -L sa_endless >/dev/null 2>&1
    "${u2[@]}" "$S" -d sa_endless
    wait_gone sa_endless
    "${u2[@]}" "$S" -L sa_endless >/dev/null 2>&1
    staprun -d sa_endless
    wait_gone sa_endless

    echo "== -b (at ${SECONDS}s)"
    refused b-cap "-b 65: a member of stapusr may ask for at most 64 MB per CPU" "${u1[@]}" "$S" -b 65 sa_run
    not loaded sa_run
    # (from one shell of the member's, in its directory: no setpriv per run)
    "${u1[@]}" bash -c 'S=$1; shift; cd "${S%/bin/staprun}/u" || exit 1
        for junk; do
            refused b-junk "-b needs a buffer size in MB, a number from 1 to 1024, got \"$junk\"" "$S" -b "$junk" sa_run || exit 1
            not loaded sa_run || exit 1
        done' b-junk "$S" 1x '' ' 1' +1 0x10 0 1025 -1 99999999999999999999999 $'\n1' '1 x=1'
    # root: the buffers must fit in half the available memory (this guest has little)
    cpus_mem
    need=$((1024 * cpus))
    if (( need > avail / 2 )); then
        refused b-mem "-b 1024: the trace buffers would take $need MB (1024 MB for each of $cpus possible CPUs), more than half of the" \
            staprun -b 1024 sa_run.ko
        not loaded sa_run
    else
        echo "SKIPPED -b 1024 memory refusal: $avail MB available"
    fi
    # a stapdev's _stp_bufsize spelled with dashes is the same parameter to the kernel (parameq())
    refused b-dash 'give the buffer size with -b MB, not as the module parameter "_stp-bufsize=1024"' \
        "${d1[@]}" "$S" sa_run.ko _stp-bufsize=1024
    refused b-dash2 'give the buffer size with -b MB, not as the module parameter "-stp-bufsize=1024"' \
        "${d1[@]}" "$S" sa_run.ko -stp-bufsize=1024
    not loaded sa_run
    # the number staprun parsed is what the module gets
    "${u1[@]}" "$S" -b 03 -L sa_endless >/dev/null 2>&1
    local bufsize
    read -r bufsize </sys/module/sa_endless/parameters/_stp_bufsize
    [[ $bufsize == 3 ]]
    "${u1[@]}" "$S" -d sa_endless
    wait_gone sa_endless

    stopped_removal
    sigchld_ignored
    buffer_budget
    uname_changed
    output_links

    echo "attacks done"; echo "(at ${SECONDS}s)"
}

# A member's staprun stopped while its run goes on (SIGSTOP: it is the member's own process), its
# stapio ended, the run removed with the member's own -d, the same installed module loaded by another
# user (the victim): resumed, the staprun must not remove the victim's run (still loaded, its
# _stp_load_id unchanged).  For a plain run and for -A; for a plain run reloaded by the same member
# (the owner matches: only the load id tells the loads apart); then -d itself, blocked (-v, its
# stderr a full pipe) between its check and its removal; then a run whose _stp_load_id cannot be read.
stopped_removal() {
    local mode pid io rc lid uid st now
    local -a who
    for mode in run attach same; do
        echo "== stopped staprun, $mode (at ${SECONDS}s)"
        if [[ $mode != attach ]]; then
            "${u1[@]}" "$S" sa_endless >stop-$mode.out 2>stop-$mode.err & pid=$!
        else
            "${u1[@]}" "$S" -L sa_endless >/dev/null 2>&1
            "${u1[@]}" "$S" -A sa_endless >stop-$mode.out 2>stop-$mode.err & pid=$!
        fi
        io=$(stapio_of $pid)
        "${u1[@]}" kill -STOP $pid
        "${u1[@]}" kill -INT "$io"
        for ((i = 0; i < 100; i++)); do
            st=
            read -r _ _ st _ 2>/dev/null </proc/"$io"/stat || true
            [[ $st == Z ]] && break
            nap 0.1
        done
        [[ $st == Z ]] || { echo "stapio $io did not end"; return 1; }
        file_has stop-$mode.out '^end ticks>0: 1$'
        "${u1[@]}" "$S" -d sa_endless
        wait_gone sa_endless
        if [[ $mode == same ]]; then who=("${u1[@]}") uid=65534; else who=("${u2[@]}") uid=65533; fi
        "${who[@]}" "$S" -L sa_endless >/dev/null 2>&1
        owner_is sa_endless $uid
        read -r lid </sys/module/sa_endless/parameters/_stp_load_id
        "${u1[@]}" kill -CONT $pid
        rc=0; wait $pid || rc=$?
        [[ $rc == 1 ]] && has stop-$mode.err "module sa_endless was removed and loaded again (now a run of uid $uid): not removing it" ||
            { echo "stopped $mode: exit $rc"; cat stop-$mode.err; return 1; }
        loaded sa_endless
        owner_is sa_endless $uid
        read -r now </sys/module/sa_endless/parameters/_stp_load_id
        [[ $now == "$lid" ]]
        "${who[@]}" "$S" -d sa_endless
        wait_gone sa_endless
    done

    echo "== stopped staprun, -d blocked on a full stderr (at ${SECONDS}s)"
    "${u1[@]}" "$S" -L sa_endless >/dev/null 2>&1
    rm -f go
    # room for "the caller is ..." (43 bytes) and a little: the next message blocks it
    ./pipefill 60 go "${u1[@]}" "$S" -v -d sa_endless >dblock.err & pid=$!
    nap 1
    loaded sa_endless
    owner_is sa_endless 65534
    "${u1[@]}" "$S" -d sa_endless
    wait_gone sa_endless
    "${u2[@]}" "$S" -L sa_endless >/dev/null 2>&1
    read -r lid </sys/module/sa_endless/parameters/_stp_load_id
    : >go
    rc=0; wait $pid || rc=$?
    [[ $rc == 1 ]] && has dblock.err "module sa_endless was removed and loaded again (now a run of uid 65533): not removing it" ||
        { echo "blocked -d: exit $rc"; cat dblock.err; return 1; }
    has dblock.err "the caller is a member of stapusr"
    loaded sa_endless
    owner_is sa_endless 65533
    read -r now </sys/module/sa_endless/parameters/_stp_load_id
    [[ $now == "$lid" ]]
    "${u2[@]}" "$S" -d sa_endless
    wait_gone sa_endless

    # _stp_load_id unreadable (here: /dev/null bound over it in this mount namespace): the end of
    # the run, -d and -A refuse to remove a run they cannot tell from another load
    echo "== _stp_load_id unreadable (at ${SECONDS}s)"
    "${u1[@]}" "$S" sa_endless >noid.out 2>noid.err & pid=$!
    io=$(stapio_of $pid)
    if ! mount --bind /dev/null /sys/module/sa_endless/parameters/_stp_load_id; then
        echo "SKIPPED the unreadable _stp_load_id: cannot mount over it"
        kill -INT "$io"; wait $pid; wait_gone sa_endless; return 0
    fi
    [[ ! -s /sys/module/sa_endless/parameters/_stp_load_id ]]
    kill -INT "$io"
    rc=0; wait $pid || rc=$?
    [[ $rc == 1 ]] && has noid.err "module sa_endless: cannot tell whether it is still the run started here (its owner or _stp_load_id cannot be read): not removing it" ||
        { echo "unreadable id: exit $rc"; cat noid.err; return 1; }
    file_has noid.out '^end ticks>0: 1$'
    loaded sa_endless
    refused noid-d "may not remove module sa_endless: cannot tell who loaded it or which load it is" \
        "${u1[@]}" "$S" -d sa_endless
    refused noid-A "may not attach to module sa_endless: cannot tell who loaded it or which load it is" \
        "${u1[@]}" "$S" -A sa_endless
    loaded sa_endless
    owner_is sa_endless 65534
    umount /sys/module/sa_endless/parameters/_stp_load_id
    "${u1[@]}" "$S" -d sa_endless
    wait_gone sa_endless
}

# SIGCHLD ignored by the caller: staprun still learns its stapio's status, so a -A that never
# attached leaves the run alone; a -A that attaches ends the run as usual.
sigchld_ignored() {
    echo "== SIGCHLD ignored (at ${SECONDS}s)"
    "${u1[@]}" "$S" -L sa_endless >/dev/null 2>&1
    refused chld-A "did not attach to module sa_endless: its run was left as it was" \
        "${u1[@]}" ./sigign "$S" -o "$sa/rootonly/out" -A sa_endless
    loaded sa_endless
    owner_is sa_endless 65534
    [[ ! -e $sa/rootonly/out ]]
    attach_and_end "${u1[@]}" ./sigign "$S" -- sa_endless chld-A2.out
}

# One budget per user: installed modules loaded one after the other with -b MB -L by one member
# add up; the load that would take the member's buffers past half of the memory they would have
# without them is refused (while that load alone would have passed), and another member may still load.
buffer_budget() {
    local cpus avail mb k refused_at=0 now
    echo "== buffer budget (at ${SECONDS}s)"
    cp sa_bud[0-9].ko sa_budd.ko "$dir"/
    cpus_mem
    # MB per CPU: the largest power of two whose buffers take at most 1/8 of the memory available
    for ((mb = 64; mb > 1 && mb * cpus * 8 > avail; mb /= 2)); do :; done
    (( mb * cpus * 16 > avail )) || { echo "SKIPPED the budget: $avail MB available, $cpus CPUs"; return 0; }
    echo "budget: $avail MB available, $cpus CPUs, -b $mb"
    for k in 0 1 2 3 4 5 6 7 8 9; do
        rc=0
        "${u1[@]}" "$S" -b "$mb" -L "sa_bud$k" >bud$k.out 2>bud$k.err || rc=$?
        if (( rc != 0 )); then
            refused_at=$k
            break
        fi
        loaded "sa_bud$k"
    done
    (( refused_at >= 2 )) || { echo "budget: load $k refused too early:"; cat bud$k.err; return 1; }
    has_line "bud$refused_at.err" "staprun: -b $mb: the trace buffers would take $((mb * cpus)) MB ($mb MB for each of $cpus possible CPUs), and those of your $refused_at loaded runs $((refused_at * mb * cpus)) MB: together more than half of the" ||
        { cat "bud$refused_at.err"; return 1; }
    not loaded "sa_bud$refused_at"
    local budget_avail=$avail
    cpus_mem
    now=$avail avail=$budget_avail
    (( mb * cpus <= now / 2 )) || { echo "budget: $now MB left: the per-load check alone refuses too"; return 1; }
    # a load without -b counts at the module's own size (sa_budd: stap -s 64, at least -b $mb)
    refused bud-default "staprun: the module's own buffer size, 64 MB (stap -s; -b sets another): the trace buffers would take $((64 * cpus)) MB (64 MB for each of $cpus possible CPUs), and those of your $refused_at loaded runs" \
        "${u1[@]}" "$S" -L sa_budd
    not loaded sa_budd
    # another member's budget is their own
    "${u2[@]}" "$S" -b "$mb" -L "sa_bud$refused_at" >/dev/null 2>&1
    owner_is "sa_bud$refused_at" 65533
    "${u2[@]}" "$S" -d "sa_bud$refused_at"
    for ((k = 0; k < refused_at; k++)); do
        "${u1[@]}" "$S" -d "sa_bud$k"
        not loaded "sa_bud$k"
    done
    # the same loads started at once: one after the other under the member's load lock, so no
    # more pass than did one by one (each checked alone, all ten would)
    local -a pids=()
    local n=0
    for k in 0 1 2 3 4 5 6 7 8 9; do
        "${u1[@]}" "$S" -b "$mb" -L "sa_bud$k" >par$k.out 2>par$k.err & pids+=($!)
    done
    wait "${pids[@]}" || true
    for k in 0 1 2 3 4 5 6 7 8 9; do
        if loaded "sa_bud$k"; then
            n=$((n + 1))
        else
            has_line par$k.err "staprun: -b $mb: the trace buffers would take " " together more than half of the" ||
                { echo "budget at once: sa_bud$k"; cat par$k.err; return 1; }
        fi
    done
    echo "budget at once: $n of 10 loaded, $refused_at one by one"
    (( n >= 2 && n <= refused_at + 1 && n < 10 ))
    for k in 0 1 2 3 4 5 6 7 8 9; do
        not loaded "sa_bud$k" || "${u1[@]}" "$S" -d "sa_bud$k"
    done
    rm -f "$dir"/sa_bud[0-9].ko "$dir"/sa_budd.ko
}

# uname() is the caller's to change (setarch --uname-2.6): the systemtap directory and the vermagic
# check go by the kernel's own release.
uname_changed() {
    local fake m=$HOSTTYPE
    echo "== setarch --uname-2.6 (at ${SECONDS}s)"
    fake=$(setarch "$m" --uname-2.6 uname -r)
    [[ $fake == 2.6.* && $fake != "$KVER" ]]
    # a module that says it is for that release
    source "$TOP/tests/lib/module-edit.sh"
    mkdir -p fake26
    set_vermagic sa_run.ko fake26/sa_run.ko "$fake"
    "${u1[@]}" setarch "$m" --uname-2.6 "$S" sa_run >uname.out 2>uname.err ||
        { cat uname.err; return 1; }
    file_has uname.out '^ran$'
    refused uname-dir "cannot open module /lib/modules/$KVER/systemtap/no_such.ko" \
        "${u1[@]}" setarch "$m" --uname-2.6 "$S" no_such
    refused uname-vermagic "module sa_run was built for kernel $fake; this is kernel $KVER" \
        "${d1[@]}" setarch "$m" --uname-2.6 "$S" fake26/sa_run.ko
    not loaded sa_run
}

# Root's -o: a name a member planted in a sticky shared directory (a symbolic link to a file of
# root's, a hard link of it) or in the member's own directory is refused, the file untouched
# (with fs.protected_symlinks and protected_hardlinks off, as on systems that turn them off).
output_links() {
    local ps ph text=
    echo "== root's -o into a member's links (at ${SECONDS}s)"
    read -r ps </proc/sys/fs/protected_symlinks
    read -r ph </proc/sys/fs/protected_hardlinks
    echo 0 >/proc/sys/fs/protected_symlinks
    echo 0 >/proc/sys/fs/protected_hardlinks
    echo precious >"$sa/precious"
    "${u1[@]}" ln -s "$sa/precious" "$sa/marks/sym"
    "${u1[@]}" ln "$sa/precious" "$sa/marks/hard"
    "${u1[@]}" ln -s "$sa/precious" "$sa/u/sym"
    "${u1[@]}" ln "$sa/precious" "$sa/u/hard"
    refused o-sticky-sym "not writing $sa/marks/sym: it exists, in a directory everybody may write to (sticky)" \
        staprun -o "$sa/marks/sym" sa_run.ko
    refused o-sticky-hard "not writing $sa/marks/hard: it exists, in a directory everybody may write to (sticky)" \
        staprun -o "$sa/marks/hard" sa_run.ko
    refused o-sym "not writing $sa/u/sym: it is a symbolic link" staprun -o "$sa/u/sym" sa_run.ko
    refused o-hard "not writing $sa/u/hard: it exists with 3 hard links" staprun -o "$sa/u/hard" sa_run.ko
    # per-CPU files of a bulk run the same way: covered by unit/outfile
    not loaded sa_run
    IFS= read -r -d '' text <"$sa/precious" || true
    [[ $text == $'precious\n' && $(stat -c %h "$sa/precious") == 3 ]]
    # a new name in the sticky directory is written
    staprun -o "$sa/marks/new" sa_run.ko
    file_has "$sa/marks/new" '^ran$'
    echo "$ps" >/proc/sys/fs/protected_symlinks
    echo "$ph" >/proc/sys/fs/protected_hardlinks
}

guest() {
    local usr= dev=
    read -r usr <stapusr.gid || true
    read -r dev <stapdev.gid || true
    [[ -n $usr && -n $dev ]] || { echo "no groups stapusr/stapdev"; return 1; }
    local old olds
    read -r old </proc/sys/fs/protected_hardlinks
    read -r olds </proc/sys/fs/protected_symlinks
    export -f attacks refused owner_is attach_and_end wait_gone loaded file_has nap stapio_of not stopped_removal \
        sigchld_ignored buffer_budget uname_changed output_links has has_line cpus_mem status_ids
    rc=0
    unshare -m --propagation private bash -ec "cd '$CASE_DIR'; attacks $usr $dev" || rc=$?
    echo "$old" >/proc/sys/fs/protected_hardlinks
    echo "$olds" >/proc/sys/fs/protected_symlinks
    not loaded sa_run
    not loaded sa_endless || staprun -d sa_endless
    local k
    for k in 0 1 2 3 4 5 6 7 8 9 d; do
        not loaded "sa_bud$k" || { staprun -d "sa_bud$k"; rc=1; }
    done
    return $rc
}

check() {
    grep -q "^attacks done$" out
}
