# seed corpus, DWARF scripts: the kernel.function scripts with target variables that 6.1 can run print what their INDEX.md row describes
# Used by tests/run (issue 7 acceptance). The corpus lives beside the repository (SEED_CORPUS, default
# TOP/../shared/seed-scripts; INDEX.md describes each script); without it, or without the kernel's
# DWARF, the case is skipped. Each script is translated as its "# cmd:" says (a -e body is the file
# itself: its header is comments), run with staprun -c and a workload that makes it print, and its
# output checked for the shape of the INDEX row, with exact values where the workload fixes them.

timeout_s=120

# The scripts run here (NNN of NNN_*.stp). Rerun as btf/seed-dwarf (FROM_BTF=1, tests/run's btf_cases): the
# same scripts typed from the kernel's BTF, its DWARF hidden; 041's link_path_walk is not in BTF: refused.
btf_rerun=1
SEEDS="008 017 019 026 039 041 056 057 058 085"
# 085 probes kmem_cache_alloc and kmem_cache_alloc_node, which 6.10 renamed (kmem_cache_alloc_noprof...): it is
# left out from 6.10 on
if [[ $(printf '%s\n' 6.10 "${KVER%%[-+]*}" | sort -V | head -n 1) == 6.10 ]]; then
    SEEDS=${SEEDS/ 085/}
fi
[[ -z ${FROM_BTF:-} ]] || SEEDS=${SEEDS/041 /}

build() {
    local n
    # shellcheck disable=SC2086
    seed_need $SEEDS
    if [[ -n ${FROM_BTF:-} ]]; then
        not $STAP -p2 "$(seed_file 041)" 2>041.p2err
        grep -q "no function 'link_path_walk' in the kernel's BTF.*linux-image-$KVER-dbg" 041.p2err || { cat 041.p2err; return 1; }
    fi
    for n in $SEEDS; do
        $STAP -v -p4 -m "seed_$n" "$(seed_file "$n")" >/dev/null 2>"$n.build.err" || { cat "$n.build.err"; return 1; }
    done
    [[ -z ${FROM_BTF:-} ]] || ! grep -l 'typed from DWARF' ./*.build.err || { echo "typed from DWARF with DWARF hidden"; return 1; }
    stat -c %s /etc/passwd >passwd.size
}

guest() {
    nproc >ncpu
    rm -rf test3 test4 dir
    mkdir dir
    echo data >dir/target
    ln -s dir/target symlink
    seed_run 008 'cat /etc/passwd'
    # (the workload's own output would race exit() into 017.out)
    seed_run 017 'cat /proc/version >/dev/null'
    seed_run 019 'cat /proc/version'
    seed_run 026 'dd if=/dev/zero of=/dev/null bs=1 count=3'
    seed_run 039 'cat /etc/passwd'
    [[ -n ${FROM_BTF:-} ]] || seed_run 041 'cat symlink'
    seed_run 056 'cat /etc/passwd > /dev/null'
    seed_run 057 "mkdir $CASE_DIR/test4"
    seed_run 058 "mkdir $CASE_DIR/test3"
    [[ $SEEDS != *085* ]] || seed_run 085 'sleep 2'
}

# want N ERE [FILE]: a line of N.out (or FILE) matches the extended regex.
want() {
    if ! grep -Eq -- "$2" "${3:-$1.out}"; then
        echo "seed $1: no line of ${3:-$1.out} matches: $2"
        head -n 5 "${3:-$1.out}" | sed 's/^/    /'
        return 1
    fi
}

# status N RC: seed N's staprun exited with RC.
status() {
    if [[ $(cat "$1.rc") != "$2" ]]; then
        echo "seed $1: staprun exit status $(cat "$1.rc"), expected $2"
        sed 's/^/    /' "$1.err" | head -n 5
        return 1
    fi
}

check() {
    local bad=0 hex='0x[0-9a-f]+'
    # 008: @cast of the size_t $count to a task_struct faults; the error names the operator, the run fails
    status 008 1 || bad=1
    want 008 "^ERROR: read fault at $hex near operator '(@cast|->)' at .*008_cast-fault-demo.stp:[0-9]+:[0-9]+$" 008.err || bad=1
    # 017: one $$vars line of vfs_read's parameters and locals, then its return value
    status 017 0 || bad=1
    want 017 "^VARS: ?file=$hex buf=$hex count=$hex pos=$hex( [a-z_]+=[^ ]+)*$" || bad=1
    want 017 '^return: -?[0-9]+$' || bad=1
    # exit() stops every hit that starts after it; a hit already running on another CPU finishes
    # (SystemTap's rule too): one pair per CPU at most, and never a lone line
    local n017
    n017=$(wc -l <017.out)
    (( n017 % 2 == 0 && n017 >= 2 && n017 <= 2 * $(cat ncpu) )) || { echo "seed 017: $n017 lines, expected 2 per CPU at most ($(cat ncpu) CPUs)"; bad=1; }
    # 019: struct file pretty-printed, from its first member on (6.1: the f_u union is anonymous);
    # nested structs as {...}, pointers in hex, integers in decimal
    status 019 0 || bad=1
    # (6.12's struct file starts with f_count, f_lock and f_mode)
    want 019 "^\\{((\\.f_u|<union>)=\\{\\.\\.\\.\\}, \\.f_path=\\{\\.\\.\\.\\}, \\.f_inode=$hex, \\.f_op=$hex|\\.f_count=\\{\\.\\.\\.\\}, \\.f_lock=\\{\\.\\.\\.\\}, \\.f_mode=[0-9]+, \\.f_op=$hex, .*\\.f_inode=$hex, .*\\.f_path=\\{\\.\\.\\.\\}), .*, \\.f_pos=[0-9]+, .*\\}$" || bad=1
    # 026: nothing
    status 026 0 || bad=1
    [[ ! -s 026.out ]] || { echo "seed 026: printed something"; bad=1; }
    # 039: the open method of the file cat opened, as name/symbol+offset/module
    status 039 0 || bad=1
    want 039 "^name: [A-Za-z_0-9.]+, addr: [A-Za-z_0-9.]+\+$hex/$hex( \[[a-z_0-9]+\])?, mod: [a-z_0-9]+$" || bad=1
    # 041: a path link_path_walk got, then a kernel backtrace starting in the function link_path_walk
    # is inlined into (6.1: path_openat, path_lookupat, path_parentat). The run ends with the
    # script's kernel_string fault when $name is an error pointer: 6.1 calls link_path_walk with
    # lookup_last()'s ERR_PTR(-ENOENT) when a name is missing (the loader's /etc/ld.so.preload, before
    # cat's "symlink"), and link_path_walk itself starts by returning that error
    if [[ -z ${FROM_BTF:-} ]]; then
        want 041 '^/' || bad=1
        want 041 "^ $hex : (path_openat|path_lookupat|path_parentat|link_path_walk)\+$hex/$hex \[kernel\]$" || bad=1
        if [[ $(cat 041.rc) != 0 ]]; then
            want 041 "^ERROR: kernel string copy fault at $hex near identifier 'kernel_string'" 041.err || bad=1
        fi
    fi
    # 056: cat's read of /etc/passwd on fd 3, with the file's real size
    status 056 0 || bad=1
    want 056 "^READ 3: file '?passwd'? of size '?$(cat passwd.size)'? on device [^ ]+$" || bad=1
    # 057: the directory mkdir created
    status 057 0 || bad=1
    want 057 '^test4$' || bad=1
    # 058: 6.1 calls fsnotify() only when the filesystem has a watcher (fsnotify_name checks
    # s_fsnotify_connectors first), and the guest has none: nothing is printed
    status 058 0 || bad=1
    [[ ! -s 058.out ]] || { echo "seed 058: printed something"; bad=1; }
    # 085: after a second, the header and one row per slab cache used meanwhile
    if [[ $SEEDS == *085* ]]; then
        status 085 0 || bad=1
        want 085 '^  ALLOCs    FREES SLAB$' || bad=1
        want 085 '^ *[0-9]+ +[0-9]+ [a-zA-Z_0-9:().-]+$' || bad=1
    fi
    return $bad
}
