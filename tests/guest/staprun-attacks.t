# staprun-attacks: a setuid-root staprun attacked by stapusr members: swapped stapio, other users' runs (-A/-d), -b, stapio's ids
# Used by tests/run (guest/staprun-attacks). Each case asserts the refusal AND that nothing changed; needs build() as root.

timeout_s=420

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
    printf '#!/bin/sh\nid >%s/mnt/marks/evil-ran\n' "$CASE_DIR" >evil-stapio
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
    mkdir -p mnt
    getent group stapusr | cut -d: -f3 >stapusr.gid
    getent group stapdev | cut -d: -f3 >stapdev.gid
}

# refused FILE WANT CMD...: CMD exits 1 and its stderr (kept in FILE.err) contains WANT.
refused() {
    local file=$1 want=$2 rc=0
    shift 2
    "$@" >"$file.out" 2>"$file.err" || rc=$?
    if [[ $rc != 1 ]] || ! grep -qF -- "$want" "$file.err"; then
        echo "$file: $* gave exit $rc, wanted 1 and \"$want\":"; cat "$file.out" "$file.err"
        return 1
    fi
}

# owner_is NAME UID: /proc/systemtap/NAME, its files and _stp_owner_uid all say UID.
owner_is() {
    local f
    [[ $(cat /sys/module/"$1"/parameters/_stp_owner_uid) == "$2" ]] ||
        { echo "$1: _stp_owner_uid $(cat /sys/module/"$1"/parameters/_stp_owner_uid), wanted $2"; return 1; }
    for f in /proc/systemtap/"$1" /proc/systemtap/"$1"/.cmd /proc/systemtap/"$1"/trace0; do
        [[ $(stat -c %u "$f") == "$2" ]] || { echo "$f: owner $(stat -c %u "$f"), wanted $2"; return 1; }
    done
}

# attach_and_end WHO... -- NAME OUT: `WHO staprun -A NAME` attaches, runs ~1 s, ends on SIGINT
# to its stapio: exit 0, the end probe's line in OUT, the module gone.
attach_and_end() {
    local -a who=()
    while [[ $1 != -- ]]; do who+=("$1"); shift; done
    local name=$2 out=$3 pid io rc=0
    "${who[@]}" -A "$name" >"$out" 2>"$out.err" & pid=$!
    io=$(stapio_of $pid)
    sleep 1
    kill -INT "$io"
    wait $pid || rc=$?
    [[ $rc == 0 ]] || { echo "${who[*]} -A $name: exit $rc"; cat "$out.err"; return 1; }
    grep -q '^end ticks>0: 1$' "$out"
    wait_gone "$name"
}

# wait_gone NAME: until module NAME is unloaded (5 s at most).
wait_gone() {
    local i
    for i in $(seq 50); do
        loaded "$1" || return 0
        sleep 0.1
    done
    echo "module $1 still loaded"
    return 1
}

# In a private mount namespace: CASE_DIR/mnt a tmpfs of root's with the setuid staprun and its
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
    mount -t tmpfs -o mode=0755 stapattacks2 "$CASE_DIR/mnt"
    local sa=$CASE_DIR/mnt
    mkdir -p "$sa/bin" "$sa/u" "$sa/rootonly" "$sa/marks"
    chmod 1777 "$sa/marks"
    cp "$TOP/build/bin/staprun" "$TOP/build/bin/stapio" "$sa/bin/"
    chmod 4755 "$sa/bin/staprun"
    chown 65534:65534 "$sa/u"
    chmod 700 "$sa/rootonly"
    local S=$sa/bin/staprun

    echo "== hard-linked staprun, swapped stapio (at ${SECONDS}s)"
    sysctl -q fs.protected_hardlinks=0
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
    "${u1[@]}" "$CASE_DIR/flipper" "$sa/u" "$sa/bin/stapio" & local flipper=$!
    local i
    for i in $(seq 40); do
        rc=0
        "${u1[@]}" "$sa/u/staprun" sa_run >race.out 2>race.err || rc=$?
        [[ $rc == 1 ]] && grep -q "refusing to run $sa/u/stapio for a setuid staprun" race.err ||
            { echo "race run $i: exit $rc"; cat race.err; kill $flipper; return 1; }
    done
    kill $flipper
    wait $flipper 2>/dev/null || true
    echo "race: $i runs refused (at ${SECONDS}s)"
    [[ ! -e $sa/marks/evil-ran ]]
    not loaded sa_run
    "${u1[@]}" rm -f "$sa/u/staprun"
    sysctl -q fs.protected_hardlinks=1

    echo "== stapio's ids (at ${SECONDS}s)"
    "${u1[@]}" "$S" sa_endless >ids.out 2>ids.err & pid=$!
    io=$(stapio_of $pid)
    [[ $(awk '/^Uid:/ { print $2, $3, $4, $5 }' /proc/"$io"/status) == "65534 65534 65534 65534" ]]
    [[ $(awk '/^Gid:/ { print $2, $3, $4, $5 }' /proc/"$io"/status) == "65534 65534 65534 65534" ]]
    [[ $(awk '/^Groups:/ { $1 = ""; print }' /proc/"$io"/status | tr -d ' \t') == "$usr" ]]
    [[ $(awk '/^CapEff:/ { print $2 }' /proc/"$io"/status) == 0000000000000000 ]]
    [[ $(cat /proc/"$io"/comm) == stapio ]]
    owner_is sa_endless 65534
    # the script's procfs files are the run owner's too
    [[ $(stat -c %u /proc/systemtap/sa_endless/state) == 65534 ]]
    "${u1[@]}" cat /proc/systemtap/sa_endless/state | grep -qx 'ticks>0 [01]'
    kill -INT "$io"
    rc=0; wait $pid || rc=$?
    [[ $rc == 0 ]] || { echo "ids run: exit $rc"; cat ids.err; return 1; }
    grep -q '^end ticks>0: 1$' ids.out
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
    grep -qF "another stapio is attached" u2-A-busy.err
    loaded sa_endless
    kill -0 "$io"
    sleep 1
    kill -INT "$io"
    rc=0; wait $pid || rc=$?
    [[ $rc == 0 ]] || { echo "u2 -A: exit $rc"; cat u2-A1.err; return 1; }
    grep -q '^end ticks>0: 1$' u2-A1.out
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
    for junk in 1x '' ' 1' +1 0x10 0 1025 -1 99999999999999999999999 $'\n1' '1 x=1'; do
        refused b-junk "-b needs a buffer size in MB, a number from 1 to 1024, got \"$junk\"" \
            "${u1[@]}" "$S" -b "$junk" sa_run
        not loaded sa_run
    done
    # root: the buffers must fit in half the available memory (this guest has little)
    cpus=$(( $(cut -d- -f2 /sys/devices/system/cpu/possible) + 1 ))
    avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
    need=$((1024 * cpus))
    if (( need > avail / 2 )); then
        refused b-mem "-b 1024: the trace buffers would take $need MB (1024 MB for each of $cpus possible CPUs), more than half of the" \
            staprun -b 1024 sa_run.ko
        not loaded sa_run
    else
        echo "SKIPPED -b 1024 memory refusal: $avail MB available"
    fi
    # the number staprun parsed is what the module gets
    "${u1[@]}" "$S" -b 03 -L sa_endless >/dev/null 2>&1
    [[ $(cat /sys/module/sa_endless/parameters/_stp_bufsize) == 3 ]]
    "${u1[@]}" "$S" -d sa_endless
    wait_gone sa_endless

    echo "attacks done"; echo "(at ${SECONDS}s)"
}

guest() {
    local usr dev
    usr=$(cat stapusr.gid)
    dev=$(cat stapdev.gid)
    [[ -n $usr && -n $dev ]] || { echo "no groups stapusr/stapdev"; return 1; }
    local old
    old=$(sysctl -n fs.protected_hardlinks)
    export -f attacks refused owner_is attach_and_end wait_gone loaded stapio_of not
    rc=0
    unshare -m --propagation private bash -ec "cd '$CASE_DIR'; attacks $usr $dev" || rc=$?
    sysctl -q fs.protected_hardlinks="$old"
    not loaded sa_run
    not loaded sa_endless || staprun -d sa_endless
    return $rc
}

check() {
    grep -q "^attacks done$" out
}
