# bpf-procfs - procfs("NAME").read/.write probes with --runtime=bpf on this host: stapio serves the files under
# /run/systemtap/NAME (FUSE) and runs their probes; read and written from the shell as guest/procfs does a module's.
# Used by tests/run (unit/bpf-procfs); the files are stapio/bpfprocfs.c's, $value runtime/bpf/procfs.h's.
asan_rerun=0
timeout_s=180

N=b_procfs_t
D=/run/systemtap/$N

source "$TOP/tests/lib/procfs-exercise.sh"

# wait_for TEST...: until `test TEST` holds, at most 10 s
wait_for() {
    local i
    for ((i = 0; i < 100; i++)); do
        test "$@" && return 0
        sleep 0.1
    done
    return 1
}

# stapio_pid: the run's stapio (staprun's child)
stapio_pid() { pgrep -f "stapio .*-N $N( |\$)" | head -n 1; }

run() {
    [[ $(id -u) == 0 ]] || { echo "needs root (BPF, FUSE)"; exit 77; }
    [[ -r /sys/kernel/btf/vmlinux ]] || { echo "the kernel has no BTF"; exit 77; }
    [[ -c /dev/fuse ]] && grep -qw fuse /proc/filesystems || { echo "no FUSE here (/dev/fuse)"; exit 77; }
    local STAPRUN=$TOP/build/bin/staprun pid io
    export SYSTEMTAP_DIR=$PWD/sd

    $STAP --runtime=bpf -p4 -m $N -e "$(procfs_script)" >p4.out
    [[ $(cat p4.out) == $N.bo ]]

    "$STAPRUN" $N.bo >run.out 2>run.err & pid=$!
    wait_for -e $D/counter || { cat run.err; return 1; }
    io=$(stapio_pid)
    # a second run of that name finds the files served
    not "$STAPRUN" $N.bo >second.out 2>second.err
    grep -q "$D is served by another run named $N" second.err || { cat second.err; return 1; }
    cat $D/counter >first.read
    ls $D >ls.out
    procfs_exercise
    procfs_end_hammered "$io" $pid
    # the files are gone when the run has ended
    not test -e $D
    not grep -q " $D " /proc/mounts

    [[ $(cat run.rc) == 0 && ! -s run.err ]] || { cat run.rc run.err; return 1; }
    diff ls.out - <<EOF
cat
command
counter
dir
EOF
    [[ -s stale.err ]]
    # (stapio runs the probes: execname() in them is its own)
    procfs_check stapio

    # a run killed outright leaves no mount behind: its helper unmounts when stapio is gone
    "$STAPRUN" $N.bo >kill.out 2>kill.err & pid=$!
    wait_for -e $D/counter || { cat kill.err; return 1; }
    kill -KILL "$(stapio_pid)"
    wait $pid || true
    wait_for ! -e $D || { echo "$D left behind"; grep " $D " /proc/mounts; return 1; }
    not grep -q " $D " /proc/mounts

    # a procfs("header") file makes self-describing -o files, its text read by running its probe (stapio serves the
    # file itself: it cannot read it through the mount)
    $STAP --runtime=bpf -o "$PWD/h.out" -e '
global n
probe procfs("header").read { $value = sprintf("format: text\napps: %s\n", "a b") }
probe timer.ms(50) { printf("tick %d\n", ++n); if (n == 3) exit() }' >h.stdout 2>h.err || { cat h.err; return 1; }
    head -n 1 h.out | grep -qx '# stap-output-header: 1' || { cat h.out; return 1; }
    grep -qx '# format: text' h.out && grep -qx '# apps: a b' h.out || { cat h.out; return 1; }
    [[ $(grep -v '^#' h.out) == $'tick 1\ntick 2\ntick 3' ]] || { cat h.out; return 1; }
    tail -n 1 h.out | grep -q '^# end: file: .* records: 3 ' || { cat h.out; return 1; }
}
