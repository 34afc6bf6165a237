# staprun-signals: kill -INT/-TERM/-HUP of staprun's pid (a background job of a non-interactive shell, SIGINT ignored there) ends the run once, with and without -c; a terminal's ^C (a pty) ends it once
# Used by tests/run (issue 33): staprun/child.c passes SIGINT on unless the terminal sent it; stapio -v counts the ending signals it got.

timeout_s=300
M=sig_end

build() {
    $STAP -p4 -m $M -e '
global ticks
probe begin { println("started") }
probe timer.ms(50) { ticks++ }
probe end { printf("end ran, ticks>0: %d\n", ticks > 0) }' >/dev/null
    test -s $M.ko
    # ctrl-c.py CMD...: CMD on a new terminal (session leader, the pty its controlling tty); once it
    # printed "started", one ^C typed; the transcript to stdout, CMD's exit status as ours
    cat >ctrl-c.py <<'EOF'
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out, sent, deadline = b"", False, time.time() + 120
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
    if not sent and b"started" in out:
        time.sleep(1)
        os.write(fd, b"\x03")
        sent = True
    if time.time() > deadline:
        os.kill(pid, 9)
sys.stdout.buffer.write(out)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
EOF
}

# ended NAME SIG [STAPRUN OPTION...]: `staprun -v OPTION... M.ko &` ended by SIG sent to its pid
# once stapio runs; output, errors and status in NAME.out, NAME.err, NAME.rc
ended() {
    local name=$1 sig=$2 pid rc=0
    shift 2
    staprun -v "$@" $M.ko >"$name.out" 2>"$name.err" &
    pid=$!
    stapio_of $pid >/dev/null
    sleep 1
    grep -q '^started$' "$name.out"
    kill -"$sig" $pid
    wait $pid || rc=$?
    echo $rc >"$name.rc"
    not loaded $M
}

guest() {
    not loaded $M
    # this shell is non-interactive: its background jobs start with SIGINT ignored
    local bg mask
    sleep 60 & bg=$!
    sleep 0.5
    mask=$(awk '/^SigIgn/ { print $2 }' /proc/$bg/status)
    kill $bg
    if (( 0x$mask & 2 )); then echo ignored >bg-int; else echo "not ignored: $mask" >bg-int; fi
    for sig in INT TERM HUP; do
        ended "$sig" $sig
        ended "$sig-c" $sig -c 'sleep 600'
    done
    rc=0
    python3 ctrl-c.py staprun -v $M.ko >tty.out || rc=$?
    echo $rc >tty.rc
    not loaded $M
}

check() {
    local run
    # SIGINT (signal 2) ignored in a background job: what the runs above start from
    [[ $(cat bg-int) == ignored ]]
    for run in INT INT-c TERM TERM-c HUP HUP-c; do
        [[ $(cat $run.rc) == 0 ]] || { echo "$run: rc $(cat $run.rc)"; cat $run.err; return 1; }
        diff $run.out <(printf 'started\nend ran, ticks>0: 1\n')
        # stapio got the signal once (passed on by staprun), and said so
        grep -qx 'stapio: ending signals received: 1' $run.err ||
            { echo "$run:"; cat $run.err; return 1; }
        not grep -q 'Skipped\|ERROR\|WARNING' $run.err
    done
    # the -c command was ended with the run
    grep -q 'stopping: ' INT-c.err
    [[ $(cat tty.rc) == 0 ]] || { cat tty.out; return 1; }
    # the terminal's ^C reached staprun and stapio; stapio ended the run on it alone
    [[ $(grep -c 'end ran, ticks>0: 1' tty.out) == 1 ]]
    grep -q 'stapio: ending signals received: 1' tty.out || { cat tty.out; return 1; }
    grep -q 'stapio: stopping: Interrupt' tty.out
}
