# procfs: procfs("NAME").read/.write files read and written from the shell while the run goes on
# Used by tests/run (guest/procfs); the family is translator/providers/procfs.c + runtime/probes/procfs.c.

timeout_s=240
D=/proc/systemtap/t_procfs

source "$TOP/tests/lib/procfs-exercise.sh"

build() {
    $STAP -p4 -m t_procfs -e "$(procfs_script)" >p4.out
    [[ $(cat p4.out) == t_procfs.ko ]]
}

# wait_file FILE: until FILE can be read (the run has started: files exist once the probes are armed).
wait_file() {
    local i
    for i in $(seq 300); do
        cat "$1" >first.read 2>/dev/null && return 0
        nap 0.1
    done
    return 1
}

guest() {
    local pid io
    staprun t_procfs.ko >run.out 2>run.err & pid=$!
    io=$(stapio_of $pid)
    wait_file $D/counter
    procfs_exercise
    procfs_end_hammered "$io" $pid
    not test -e $D
    not loaded t_procfs
}

check() {
    [[ $(cat run.rc) == 0 ]] || { cat run.err; return 1; }
    [[ ! -s run.err ]] || { cat run.err; return 1; }
    grep -q 'Input/output error' stale.err
    procfs_check dd
}
