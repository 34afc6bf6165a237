# remote: stap --remote over a fake ssh (runs the command here; "down" fails like an unreachable host):
# one compile per kernel release, -o per host, --remote-prefix, ^C, exit() on one host, lost hosts, hostile targets.
# Used by tests/run (unit/ and asan/remote); the remote staprun is the STAP_REMOTE_STAPRUN test hook.

timeout_s=500

# The fake ssh: options as OpenSSH takes them, then HOST and the command, run with sh as a login
# shell would. Host "down": exit 255 at once. Host "nodevel": a kernel release with no build tree
# here. Host "dropper": its run prints one line and the connection "drops" (255). Each host has
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
    *"uname -r"*) echo "$KVER"; exit 0 ;;   # this machine's build tree (uname -r here is not it)
    dropper*staprun*) echo "begin on dropper"; touch "$FAKE_DIR/started.dropper"; exit 255 ;;
esac
export FAKE_HOST=$host FAKE_USER=$user FAKE_PORT=$port TMPDIR=$FAKE_DIR/remote-tmp/$host
mkdir -p "$TMPDIR"
exec sh -c "$1"
EOF
    # The fake staprun: records its argv and the module, prints a begin line, then waits for the
    # SIGTERM the wrapper sends and prints an end line. Host "quick" ends by itself (as exit()
    # would) once the hosts listed in $FAKE_WAIT have started.
    cat >bin/fake-staprun <<'EOF'
#!/bin/sh
trap 'echo "end on $FAKE_HOST"; exit 0' TERM
for a in "$@"; do printf '[%s]' "$a"; done >"$FAKE_DIR/argv.$FAKE_HOST"
while [ $# -gt 0 ]; do
    case $1 in *.ko) cp "$1" "$FAKE_DIR/got.$FAKE_HOST.ko"; ko=${1##*/} ;; esac
    case $1 in -c) cmd=$2; shift ;; esac
    shift
done
echo "begin on $FAKE_HOST $ko"
echo "stderr line of $FAKE_HOST" >&2
touch "$FAKE_DIR/started.$FAKE_HOST"
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
    expect_plain_error "--remote cannot be combined with -p" --remote h -p4 -e "$script"
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
    [[ $(cat fake/argv.alpha) == "[-c][echo 'it''s \$HOME;' >/dev/null][$FAKE_DIR/remote-tmp/alpha/"*"/$mod][x=a b]" ]] \
        || { echo "staprun argv:"; cat fake/argv.alpha; return 1; }
    no_leftovers

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
}

# the dropper's run never started its wrapper, so its directory stays: only the others are checked
no_leftovers_except_dropper() {
    if [[ -n $(find fake/remote-tmp -mindepth 2 -not -path '*/dropper*') ]]; then
        echo "remote directories left:"; find fake/remote-tmp; return 1
    fi
    ! pgrep -f "$PWD/bin/fake-staprun" >/dev/null
}
