# remote: stap --remote over a fake ssh (runs the command here; "down" fails like an unreachable host):
# one compile per kernel release, -o per host, --remote-prefix, ^C, exit() on one host, lost hosts, hostile targets,
# staprun -r N:URI (remote_id/remote_uri), -p1 .. -p4 once per release (host "other" has a second release).
# Used by tests/run (unit/ and asan/remote); the remote staprun is the STAP_REMOTE_STAPRUN test hook.

timeout_s=500
cost_s=60

# The fake ssh: options as OpenSSH takes them, then HOST and the command, run with sh as a login
# shell would. Host "down": exit 255 at once. Host "nodevel": a kernel release with no build tree
# here. Host "other": release 9.9.9-other, whose build tree make_other_tree makes (under
# STAP_REMOTE_MODULES). Host "dropper": its run prints one line and the connection "drops" (255). Each host has
# its own TMPDIR (the remote mktemp) and FAKE_HOST; every call is logged with its argv.
make_fakes() {
    mkdir -p bin
    cat >bin/ssh <<'EOF'
#!/bin/sh
printf '%s\n' "ssh $*" >>"$FAKE_DIR/ssh.log"
port=22 user=
while [ $# -gt 0 ]; do
    case $1 in
        -o) shift 2 ;;
        -p) port=$2; shift 2 ;;
        -l) user=$2; shift 2 ;;
        --) shift; break ;;
        -*) echo "fake ssh: unexpected option $1" >&2; exit 255 ;;
        *) break ;;
    esac
done
host=$1; shift
[ $# = 1 ] || { echo "fake ssh: want one command string, got $#" >&2; exit 255; }
case $host in
    down) echo "ssh: connect to host down port $port: Connection refused" >&2; exit 255 ;;
esac
case $host$1 in
    nodevel*"uname -r"*) echo 0.0.1-nodevel; exit 0 ;;
    other*"uname -r"*) echo 9.9.9-other; exit 0 ;;
    *"uname -r"*) echo "$KVER"; exit 0 ;;   # this machine's build tree (uname -r here is not it)
    dropper*staprun*) echo "begin on dropper"; touch "$FAKE_DIR/started.dropper"; exit 255 ;;
esac
export FAKE_HOST=$host FAKE_USER=$user FAKE_PORT=$port TMPDIR=$FAKE_DIR/remote-tmp/$host
mkdir -p "$TMPDIR"
exec sh -c "$1"
EOF
    # The fake staprun: records its argv and the module, prints a begin line, then waits for the
    # SIGTERM the wrapper sends and prints an end line. Host "quick" ends by itself (as exit()
    # would) once the hosts listed in $FAKE_WAIT have started. The wrapper sends SIGTERM as soon as
    # the fake has a child (its cp may be one): a SIGTERM before the begin line is kept for after it.
    # Host "flood", once $FAKE_DIR/go exists, writes $FLOOD_BYTES x's without a newline, then once
    # $FAKE_DIR/release exists ends that line and exits.
    cat >bin/fake-staprun <<'EOF'
#!/bin/sh
trap 'term=1' TERM
for a in "$@"; do printf '[%s]' "$a"; done >"$FAKE_DIR/argv.$FAKE_HOST"
while [ $# -gt 0 ]; do
    case $1 in *.ko) cp "$1" "$FAKE_DIR/got.$FAKE_HOST.ko"; ko=${1##*/} ;; esac
    case $1 in -c) cmd=$2; shift ;; esac
    shift
done
echo "begin on $FAKE_HOST $ko"
echo "stderr line of $FAKE_HOST" >&2
touch "$FAKE_DIR/started.$FAKE_HOST"
if [ "$FAKE_HOST" = flood ]; then
    while [ ! -e "$FAKE_DIR/go" ]; do sleep 0.1; done
    head -c "$FLOOD_BYTES" /dev/zero | tr '\0' x
    while [ ! -e "$FAKE_DIR/release" ]; do sleep 0.1; done
    echo
    echo "exit on flood"
    exit 0
fi
trap 'echo "end on $FAKE_HOST"; exit 0' TERM
if [ -n "$term" ]; then echo "end on $FAKE_HOST"; exit 0; fi
if [ -n "$cmd" ]; then sh -c "$cmd"; echo "end on $FAKE_HOST"; exit 0; fi
if [ "$FAKE_HOST" = quick ]; then
    for w in $FAKE_WAIT; do
        while [ ! -e "$FAKE_DIR/started.$w" ]; do sleep 0.1; done
    done
    echo "exit on quick"
    exit 0
fi
while :; do sleep 0.1; done
EOF
    chmod +x bin/ssh bin/fake-staprun
}

# make_other_tree: mods/9.9.9-other/build, a tree of symlinks to this machine's tree whose release
# (include/generated/utsrelease.h, include/config/kernel.release) is 9.9.9-other: a second release to compile for.
make_other_tree() {
    local real t=mods/9.9.9-other/build
    real=$(readlink -f "/lib/modules/$KVER/build")
    mkdir -p "$t/include"
    local e
    for e in .config .kernelvariables Makefile Module.symvers arch scripts tools; do
        [[ -e $real/$e ]] && ln -s "$(readlink -f "$real/$e")" "$t/$e"
    done
    cp -rs "$real/include/generated" "$real/include/config" "$t/include/"
    rm "$t/include/config/kernel.release" "$t/include/generated/utsrelease.h"
    echo 9.9.9-other >"$t/include/config/kernel.release"
    echo '#define UTS_RELEASE "9.9.9-other"' >"$t/include/generated/utsrelease.h"
}

# fresh: a clean FAKE_DIR for the next run.
fresh() {
    rm -rf fake out.*
    mkdir -p fake/remote-tmp
}

# no_leftovers: every remote directory removed, no fake staprun still running.
no_leftovers() {
    if [[ -n $(find fake/remote-tmp -mindepth 2) ]]; then
        echo "remote directories left:"; find fake/remote-tmp; return 1
    fi
    if pgrep -f "$PWD/bin/fake-staprun" >/dev/null; then
        echo "fake staprun still running"; return 1
    fi
}

run() {
    source "$TOP/tests/lib/assert.sh"
    make_fakes
    export PATH=$PWD/bin:$PATH FAKE_DIR=$PWD/fake STAP_REMOTE_STAPRUN=$PWD/bin/fake-staprun
    local script='probe begin { println("hi") } probe end { println("bye") }' rc

    # hostile or malformed targets never reach ssh
    fresh
    expect_plain_error "--remote 'a;touch x': expected ssh://" --remote 'a;touch x' -e "$script"
    expect_plain_error "--remote '-oProxyCommand=touch x': expected" --remote '-oProxyCommand=touch x' -e "$script"
    expect_plain_error "--remote 'ssh://u\$(id)@h': expected" --remote 'ssh://u$(id)@h' -e "$script"
    expect_plain_error "--remote 'h x': expected" --remote 'h x' -e "$script"
    expect_plain_error "--remote 'h:0': expected" --remote 'h:0' -e "$script"
    expect_plain_error "--remote 'h:65536': expected" --remote 'h:65536' -e "$script"
    expect_plain_error "--remote 'h:22x': expected" --remote 'h:22x' -e "$script"
    expect_plain_error "--remote 'h:-1': expected" --remote 'h:-1' -e "$script"
    expect_plain_error "--remote '': expected" --remote '' -e "$script"
    expect_plain_error "--remote 'u@': expected" --remote 'u@' -e "$script"
    expect_plain_error "--remote 'http://h': only ssh://" --remote 'http://h' -e "$script"
    expect_plain_error "--remote '[::1;x]': expected" --remote '[::1;x]' -e "$script"
    expect_plain_error "--remote cannot be combined with -r" --remote h -r "$KVER" -e "$script"
    local long
    long="ssh://$(printf 'u%.0s' {1..32})@$(printf 'h%.0s' {1..250})"   # each part fine, too long in all
    expect_plain_error "--remote '${long:0:40}...': longer than 255 characters" --remote "$long" -e "$script"
    expect_plain_error "--remote cannot be combined with -b" --remote h -b -e "$script"
    [[ ! -e fake/ssh.log ]] || { echo "ssh was run:"; cat fake/ssh.log; return 1; }

    # two hosts on one release (one compile), one unreachable, one without a build tree here, and
    # "quick" ending the run: the others' end probes still print; the failures are named; status 1
    fresh
    rc=0
    FAKE_WAIT="alpha beta" "$STAP" -v --remote alpha --remote ssh://root@beta:2222 --remote down \
        --remote nodevel --remote quick --remote-prefix -e "$script" >stdout 2>stderr || rc=$?
    [[ $rc == 1 ]] || { echo "exit $rc, wanted 1"; cat stderr; return 1; }
    [[ $(grep -c "^stap: remote: compiling for kernel release " stderr) == 1 ]] \
        || { echo "wanted one compile:"; cat stderr; return 1; }
    grep -qx "stap: remote: compiling for kernel release $KVER" stderr
    grep -qx "stap: host down: cannot reach it (ssh exited with status 255)" stderr
    grep -q "^ssh: connect to host down port 22: Connection refused" stderr
    grep -qx "stap: host nodevel: no kernel build tree for its release 0.0.1-nodevel on this machine .*" stderr
    local mod
    mod=$(sed -n 's/^0: begin on alpha \(stap_[0-9a-f]*\.ko\)$/\1/p' stdout)
    [[ -n $mod ]] || { echo "no begin line from alpha:"; cat stdout; return 1; }
    sort stdout >sorted
    printf '%s\n' "0: begin on alpha $mod" "0: end on alpha" "1: begin on beta $mod" "1: end on beta" \
        "4: begin on quick $mod" "4: exit on quick" | sort >want
    diff want sorted
    grep -qx "0: stderr line of alpha" stderr
    grep -qx "1: stderr line of beta" stderr
    # each host's lines in order; the same module everywhere, built for KVER
    [[ $(grep '^0: ' stdout | tr '\n' '|') == "0: begin on alpha $mod|0: end on alpha|" ]]
    cmp fake/got.alpha.ko fake/got.beta.ko
    cmp fake/got.alpha.ko fake/got.quick.ko
    [[ $(modinfo -F vermagic fake/got.alpha.ko) == "$KVER "* ]]
    # ssh got the user and port as options, "--" before the host
    grep -q -- "^ssh -o BatchMode=yes -o ConnectTimeout=30 -o ServerAliveInterval=15 -o ServerAliveCountMax=4 -p 2222 -l root -- beta sh -c " fake/ssh.log
    grep -q -- "^ssh -o BatchMode=yes .* -- alpha sh -c " fake/ssh.log
    [[ ! -e fake/got.down.ko && ! -e fake/got.nodevel.ko ]]
    # remote_id() and remote_uri(): each host's staprun gets -r INDEX:URI, the URI as given
    [[ $(cat fake/argv.alpha) == "[-v][-r][0:alpha][-O]["*"][$FAKE_DIR/remote-tmp/alpha/"*"/$mod]" ]] \
        || { echo "alpha's staprun argv:"; cat fake/argv.alpha; return 1; }
    [[ $(cat fake/argv.beta) == "[-v][-r][1:ssh://root@beta:2222][-O]["*"][$FAKE_DIR/remote-tmp/beta/"*"/$mod]" ]] \
        || { echo "beta's staprun argv:"; cat fake/argv.beta; return 1; }
    [[ $(cat fake/argv.quick) == "[-v][-r][4:quick]["* ]] || { echo "quick's staprun argv:"; cat fake/argv.quick; return 1; }
    # each host's clock measured over ssh before its run (NTP-style: the shortest of several round
    # trips): the fake runs here, so the offset is within its error of 0, and the error small
    off=$(sed -n 's/.*\[-O\]\[\(-\?[0-9]*\),\([0-9]*\)\].*/\1/p' fake/argv.alpha)
    err=$(sed -n 's/.*\[-O\]\[\(-\?[0-9]*\),\([0-9]*\)\].*/\2/p' fake/argv.alpha)
    echo "alpha's clock offset $off us, error $err us"
    (( err >= 0 && err < 1000000 && off >= -err - 1000 && off <= err + 1000 ))
    [[ $(grep -c "sh -c 'while read -r l; do date +%s%6N; done'" fake/ssh.log) -ge 2 ]]
    no_leftovers

    # -o FILE: one file per host, FILE.HOST, no prefix; -c's command arrives as one argument,
    # quotes and all, and its end ends each host's run; -G values reach staprun
    fresh
    rc=0
    "$STAP" --remote alpha --remote root@beta -o out -c "echo 'it''s \$HOME;' >/dev/null" \
        -G 'x=a b' -e "$script" >stdout 2>stderr || rc=$?
    [[ $rc == 0 ]] || { echo "exit $rc"; cat stderr; return 1; }
    [[ ! -s stdout ]] || { echo "stdout not empty:"; cat stdout; return 1; }
    printf '%s\n' "begin on alpha $mod" "end on alpha" | diff - out.alpha
    printf '%s\n' "begin on beta $mod" "end on beta" | diff - out.beta
    [[ $(cat fake/argv.alpha) == "[-r][0:alpha][-O]["*"][-c][echo 'it''s \$HOME;' >/dev/null][$FAKE_DIR/remote-tmp/alpha/"*"/$mod][x=a b]" ]] \
        || { echo "staprun argv:"; cat fake/argv.alpha; return 1; }
    [[ $(cat fake/argv.beta) == "[-r][1:root@beta][-O]["*"][-c]"* ]] || { echo "staprun argv:"; cat fake/argv.beta; return 1; }
    no_leftovers

    output_attacks

    # ^C (SIGINT to stap): every host's run ends with its end output, status 0
    fresh
    rc=0
    "$STAP" --remote alpha --remote beta --remote-prefix -e "$script" >stdout 2>stderr &
    local pid=$! i
    for ((i = 0; i < 600; i++)); do
        [[ -e fake/started.alpha && -e fake/started.beta ]] && break
        sleep 0.1
    done
    kill -INT "$pid"
    wait "$pid" || rc=$?
    [[ $rc == 0 ]] || { echo "after ^C: exit $rc"; cat stderr; return 1; }
    printf '%s\n' "0: begin on alpha $mod" "0: end on alpha" "1: begin on beta $mod" "1: end on beta" \
        | sort | diff - <(sort stdout)
    no_leftovers

    # a host lost mid-run is named; the other carries on until quick ends the run; status 1
    fresh
    rc=0
    FAKE_WAIT="alpha dropper" "$STAP" --remote alpha --remote dropper --remote quick -o out \
        -e "$script" >stdout 2>stderr || rc=$?
    [[ $rc == 1 ]] || { echo "exit $rc, wanted 1"; cat stderr; return 1; }
    grep -qx "stap: host dropper: connection lost during the run (ssh exited with status 255)" stderr
    printf '%s\n' "begin on alpha $mod" "end on alpha" | diff - out.alpha
    printf '%s\n' "begin on dropper" | diff - out.dropper
    printf '%s\n' "begin on quick $mod" "exit on quick" | diff - out.quick
    [[ $(grep -c '^stap: host' stderr) == 1 ]] || { cat stderr; return 1; }
    no_leftovers_except_dropper

    # a run that cannot start (-o into a missing directory): the copied modules are removed
    fresh
    rc=0
    "$STAP" --remote alpha --remote beta -o nodir/out -e "$script" >stdout 2>stderr || rc=$?
    [[ $rc == 1 ]] || { echo "exit $rc, wanted 1"; cat stderr; return 1; }
    grep -q "^stap: error: cannot open nodir/out.alpha: " stderr
    [[ -e fake/ssh.log && $(grep -c -- "sh -c 'rm -rf " fake/ssh.log) == 2 ]] || { cat fake/ssh.log; return 1; }
    no_leftovers

    # every host unreachable: status 1, nothing run
    fresh
    rc=0
    "$STAP" --remote down -e "$script" >stdout 2>stderr || rc=$?
    [[ $rc == 1 && ! -s stdout ]]
    grep -qx "stap: host down: cannot reach it (ssh exited with status 255)" stderr

    passes
}

# vm_hwm PID: the peak resident memory of process PID, in kB
vm_hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }

# -o FILE and what hosts send (security issue 46, item 5): FILE.HOST a planted symbolic link is refused, its
# target untouched; a host that never sends a newline does not grow stap's memory: its 64 MB go to FILE.HOST
# as they come, whole; to the terminal a line is cut every 64 KiB, said once.
output_attacks() {
    local rc pid i hwm0 hwm1 want
    fresh
    echo precious >victim
    ln -sf victim out.alpha
    rc=0
    "$STAP" --remote alpha -o out -c true -e "$script" >stdout 2>stderr || rc=$?
    [[ $rc == 1 ]] || { echo "-o through a symbolic link: exit $rc, wanted 1"; cat stderr; return 1; }
    grep -qx "stap: error: not writing out.alpha: it is a symbolic link" stderr || { cat stderr; return 1; }
    [[ $(cat victim) == precious && -L out.alpha ]]
    no_leftovers
    rm -f out.alpha victim

    fresh
    export FLOOD_BYTES=64000000
    "$STAP" --remote flood -o out -e "$script" >stdout 2>stderr &
    pid=$!
    for ((i = 0; i < 600; i++)); do
        [[ -e fake/started.flood ]] && break
        sleep 0.1
    done
    hwm0=$(vm_hwm "$pid")
    touch fake/go
    # all but the last piece of the line written to out.flood while the host still holds the line open
    for ((i = 0; i < 300; i++)); do
        (( $(stat -c %s out.flood) >= 63000000 )) && break
        sleep 0.1
    done
    hwm1=$(vm_hwm "$pid")
    touch fake/release
    rc=0
    wait "$pid" || rc=$?
    echo "stap's peak RSS: $hwm0 kB before the flood, $hwm1 kB with 63 MB of one line passed through"
    [[ $rc == 0 ]] || { echo "flood: exit $rc"; cat stderr; return 1; }
    [[ -n $hwm0 && -n $hwm1 ]] && (( hwm1 - hwm0 < 16384 )) || { echo "stap grew by $((hwm1 - hwm0)) kB"; return 1; }
    [[ $(head -n 1 out.flood) == "begin on flood "*.ko ]]
    want=$(( $(head -n 1 out.flood | wc -c) + FLOOD_BYTES + 1 + 14 ))
    [[ $(stat -c %s out.flood) == "$want" ]] || { echo "out.flood: $(stat -c %s out.flood) bytes, wanted $want"; return 1; }
    [[ $(sed -n 2p out.flood | tr -d x | wc -c) == 1 && $(sed -n 3p out.flood) == "exit on flood" ]]
    not grep -q "longer than" stderr
    no_leftovers

    # to the terminal, with --remote-prefix: pieces of 64 KiB, each its own line, said once
    fresh
    mkdir -p fake
    touch fake/go fake/release
    FLOOD_BYTES=200000 "$STAP" --remote flood --remote-prefix -e "$script" >stdout 2>stderr || { cat stderr; return 1; }
    grep -qx "stap: host flood: a line of its output is longer than 65536 bytes: cut into lines of 65536 bytes" stderr ||
        { cat stderr; return 1; }
    [[ $(grep -c "longer than" stderr) == 1 ]]
    [[ $(sed 1d stdout | awk '{ print length($0) }' | tr '\n' ' ') == "65539 65539 65539 3395 16 " ]] ||
        { sed 1d stdout | awk '{ print length($0) }'; return 1; }
    [[ $(sed -n 2p stdout) == "0: x"* && $(tail -n 1 stdout) == "0: exit on flood" ]]
    no_leftovers
    unset FLOOD_BYTES
}

# only_uname: ssh ran nothing but `uname -r` (no copy, no staprun)
only_uname() {
    if grep -v -- " sh -c 'uname -r'\$" fake/ssh.log; then echo "ssh ran more than uname -r"; return 1; fi
    [[ -z $(find fake/remote-tmp -mindepth 1) ]] || { find fake/remote-tmp; return 1; }
}

# -p1 .. -p4 with --remote: each host asked its release, each pass once per distinct release, its
# output exactly as stap -pN -r RELEASE prints it (under a "kernel release" line when the hosts
# have several); -p4 leaves one module per release here and prints its name; nothing copied or run.
passes() {
    make_other_tree
    export STAP_REMOTE_MODULES=$PWD/mods
    local other=$PWD/mods/9.9.9-other/build rc n
    # pass 1 evaluates %( kernel_vr ... %) for the target: each release prints its own branch
    local p='probe begin { println(%( kernel_vr == "9.9.9-other" %? "other" %: "real" %)) exit() }'
    for n in 1 2 3; do
        "$STAP" -p$n -r "$KVER" -e "$p" >want.real
        "$STAP" -p$n -r "$other" -e "$p" >want.other
        grep -q '"real"' want.real && grep -q '"other"' want.other
        # one release: the output as is
        fresh
        "$STAP" -p$n --remote alpha --remote ssh://beta -e "$p" >stdout 2>stderr \
            || { echo "-p$n, one release: exit $?"; cat stderr; return 1; }
        diff want.real stdout
        [[ ! -s stderr ]] || { echo "-p$n stderr:"; cat stderr; return 1; }
        only_uname
        [[ $(wc -l <fake/ssh.log) == 2 ]]
        # two releases: each once, in the order of their first host, each under its line
        fresh
        "$STAP" -p$n --remote alpha --remote other --remote ssh://beta:22 -e "$p" >stdout 2>stderr \
            || { echo "-p$n, two releases: exit $?"; cat stderr; return 1; }
        if [[ $n == 3 ]]; then
            { echo "/* kernel release $KVER: 0 alpha, 2 beta:22 */"; cat want.real
              echo "/* kernel release 9.9.9-other: 1 other */"; cat want.other; } >want
        else
            { echo "# kernel release $KVER: 0 alpha, 2 beta:22"; cat want.real
              echo "# kernel release 9.9.9-other: 1 other"; cat want.other; } >want
        fi
        diff want stdout
        only_uname
    done

    # errors as in a run: hosts named, the others' output printed, status 1
    fresh
    rc=0
    "$STAP" -p2 --remote down --remote alpha --remote nodevel -e "$p" >stdout 2>stderr || rc=$?
    [[ $rc == 1 ]] || { echo "-p2 with failing hosts: exit $rc"; cat stderr; return 1; }
    "$STAP" -p2 -r "$KVER" -e "$p" | diff - stdout
    grep -qx "stap: host down: cannot reach it (ssh exited with status 255)" stderr
    grep -qx "stap: host nodevel: no kernel build tree for its release 0.0.1-nodevel on this machine .*" stderr
    only_uname
    # a script error: reported once per release, status 1
    fresh
    rc=0
    "$STAP" -p2 --remote alpha --remote other -e 'probe begin { x = }' >stdout 2>stderr || rc=$?
    [[ $rc == 1 ]] || { echo "-p2 of a bad script: exit $rc"; cat stdout stderr; return 1; }
    printf '%s\n' "# kernel release $KVER: 0 alpha" "# kernel release 9.9.9-other: 1 other" | diff - stdout
    grep -qx "stap: host alpha: translating or compiling the script for kernel $KVER failed" stderr
    grep -qx "stap: host other: translating or compiling the script for kernel 9.9.9-other failed" stderr

    # -p4: two hosts of one release and one of another: two compiles, two modules here (named
    # for their release: the other tree is this one under another name), their names printed,
    # nothing copied or run
    fresh
    rm -f ./*.ko
    "$STAP" -v -p4 --remote alpha --remote other --remote beta -e "$p" >stdout 2>stderr \
        || { echo "-p4: exit $?"; cat stderr; return 1; }
    [[ $(grep -c "^stap: remote: compiling for kernel release " stderr) == 2 ]] || { cat stderr; return 1; }
    grep -qx "stap: remote: compiling for kernel release $KVER" stderr
    grep -qx "stap: remote: compiling for kernel release 9.9.9-other" stderr
    local m1 m2
    [[ $(wc -l <stdout) == 2 ]] || { cat stdout; return 1; }
    m1=$(sed -n 1p stdout) m2=$(sed -n 2p stdout)
    [[ $m1 == stap_*.ko && $m2 == stap_*.ko && $m1 != "$m2" && -f $m1 && -f $m2 ]]
    [[ $(ls ./*.ko | wc -l) == 2 ]]
    [[ $(modinfo -F vermagic "$m1") == "$KVER "* ]]
    # the same modules local -p4 runs leave (stap_ + a hash of the script and the release)
    mkdir -p local && (cd local && "$STAP" -p4 -r "$KVER" -e "$p" && "$STAP" -p4 -r "$other" -e "$p") >local.out
    printf '%s\n' "$m1" "$m2" | diff - local.out
    only_uname
    # -m NAME with two releases: the second module would overwrite the first: that host is named
    fresh
    rm -f ./*.ko
    rc=0
    "$STAP" -p4 -m same --remote alpha --remote other -e "$p" >stdout 2>stderr || rc=$?
    [[ $rc == 1 ]] || { echo "-p4 -m: exit $rc"; cat stderr; return 1; }
    [[ $(cat stdout) == same.ko && -f same.ko ]]
    grep -qx "stap: host other: its module for release 9.9.9-other would overwrite same.ko, written for release $KVER (-m NAME with hosts of several releases)" stderr
    [[ $(modinfo -F vermagic same.ko) == "$KVER "* ]]
    only_uname
    unset STAP_REMOTE_MODULES
}

# the dropper's run never started its wrapper, so its directory stays: only the others are checked
no_leftovers_except_dropper() {
    if [[ -n $(find fake/remote-tmp -mindepth 2 -not -path '*/dropper*') ]]; then
        echo "remote directories left:"; find fake/remote-tmp; return 1
    fi
    ! pgrep -f "$PWD/bin/fake-staprun" >/dev/null
}
