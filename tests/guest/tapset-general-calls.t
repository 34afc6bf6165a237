# published-kind scripts on DWARF probes of kernel functions: para-callgraph (FUNC@FILE) and functioncallcount (a name glob) under a program with known calls
# Used by tests/run (issue 15): tests/guest/scripts/general/*.stp and pubprog.c, as tapset-general-scripts.t (the syscall tapset's).
# Rerun as btf/tapset-general-calls (issue 21): the same output typed from BTF, but para-callgraph's FUNC@FILE pattern,
# which needs DWARF (refused naming the -dbg package), is a name glob there; BTF finds other vfs_* sites than DWARF does.

timeout_s=120
btf_rerun=1

build() {
    need_kernel_dwarf
    pubprog_build
    local pcg='*@fs/read_write.c'
    if [[ -n ${FROM_BTF:-} ]]; then
        not $STAP -p2 "$TOP/tests/guest/scripts/general/para-callgraph.stp" "$pcg" 2>pcg.p2err
        grep -q "function(\"NAME@FILE\") patterns need the kernel's DWARF (install linux-image-$KVER-dbg)" pcg.p2err ||
            { cat pcg.p2err; return 1; }
        pcg='[kv]*s_read'
    fi
    spawn general_module pcg para-callgraph "$pcg"
    spawn general_module fcc functioncallcount 'vfs_*'
    wait_jobs
}

guest() {
    pubprog_runs pcg fcc
}

check() {
    [[ $(cat rc) == 0 ]]
    local m n
    for m in pcg fcc; do
        echo "$m: $(skips $m) skipped"
    done
    # para-callgraph: the 50 reads of /dev/zero: ksys_read calls vfs_read one level deeper (which calls
    # rw_verify_area deeper still), both return 0x40 at their own depth. Every hit of the *@fs/read_write.c
    # probes, any process's, takes the script's locks, so a few hits are skipped (counted, reported) under
    # TCG and a lost return shifts thread_indent's later depths: depths are compared with each other, and
    # most of the 50 calls must be complete. The -c command is pubprog itself (target()), no shell (the same
    # pid is still "stapio" while it execs pubprog).
    [[ -z $(grep -v ' pubprog(' pcg.out | grep -v '^pubprog ' | grep -v ' stapio(') ]]
    n=$(awk '
        / pubprog\([0-9]+\):/ {
            line = $0
            sub(/^ *[0-9]+ pubprog\([0-9]+\):/, "", line)
            match(line, /^ */)
            d = RLENGTH
            rest = substr(line, d + 1)
            if (rest ~ /^->ksys_read fd=0x3 buf=0x[0-9a-f]+ count=0x40$/) { st = 1; kd = d; next }
            if (st == 1 && d == kd + 1 && rest ~ /^->vfs_read file=0x[0-9a-f]+ buf=0x[0-9a-f]+ count=0x40 pos=0x[0-9a-f]+$/) { st = 2; next }
            if (st == 2 && d >= kd + 2) next
            if (st == 2 && d == kd + 1 && rest == "<-vfs_read return=0x40") { st = 3; next }
            if (st == 3 && d == kd && rest == "<-ksys_read return=0x40") { ok++ }
            st = 0
        }
        END { print ok + 0 }' pcg.out)
    echo "pcg: $n complete reads"
    (( n >= 40 && n <= 51 ))
    # functioncallcount: vfs_read for the 50 reads of /dev/zero, the hostname, the loader's reads
    n=$(awk '$1 == "vfs_read" {print $2}' fcc.out)
    echo "fcc: vfs_read $n"
    (( n >= 51 - $(skips fcc) && n < 80 ))
}
