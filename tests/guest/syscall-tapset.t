# syscall.* tapset and helper functions in the kernel: exact arguments, return values and errno
# strings of dd's calls, located fault errors, helper outputs, syscall.* and syscall.*.return.
# Used by tests/run (issue 4): tapset/, runtime/core/deref.h, regs.h, errnames.h.

timeout_s=240
btf_rerun=1

# Module t_sc_dd: what dd does, filtered to its calls on our files (the loader's calls
# are left out).  "ready" once the probes are armed; the run ends at an open of /stap-done.
sc_dd='
global ready, want
probe syscall.openat {
    if (filename == "\"/stap-ready\"") {
        if (!ready)
            println("ready")
        ready = 1
    } else if (filename == "\"/stap-done\"") {
        exit()
    } else if (execname() == "dd" &&
               (filename == "\"/dev/zero\"" || filename == "\"/dev/null\"" || filename == "\"/stap-no-such-file\"")) {
        printf("openat: %s|%d|%s|%s|%d|%s|%#o|%s|%s|%s\n", name, dfd, dfd_str, filename, flags, flags_str,
               mode, argstr, probefunc(), pp())
        printf("user_string: %s|%s|%s\n", user_string(filename_uaddr), user_string_n(filename_uaddr, 4),
               user_string_n_quoted(filename_uaddr, 4))
        # the wrapper gets a pointer to the user registers: si (the file name) is at offset 104
        regs = pointer_arg(1) + 104
        printf("regs: %d %d %d %d\n", kernel_long(regs) == filename_uaddr,
               (kernel_int(regs) & 0xffffffff) == (filename_uaddr & 0xffffffff),
               (kernel_short(regs) & 0xffff) == (filename_uaddr & 0xffff),
               (kernel_char(regs) & 0xff) == (filename_uaddr & 0xff))
        want[tid()] = 1
    }
}
probe syscall.openat.return {
    if (tid() in want) {
        printf("openat.return: %s|%d|%s|%s\n", name, retval, retstr, probefunc())
        delete want[tid()]
    }
}
probe syscall.read {
    if (execname() == "dd" && count == 7)
        printf("read: %s|%d|%d|%s\n", name, fd, count, probefunc())
}
probe syscall.read.return {
    if (execname() == "dd" && retval == 7)
        printf("read.return: %s|%d|%s\n", name, retval, retstr)
}
probe syscall.write {
    if (execname() == "dd" && count == 7)
        printf("write: %s|%d|%d\n", name, fd, count)
}
probe kprobe.function("ksys_read") {
    if (execname() == "dd" && long_arg(3) == 7)
        printf("ksys_read: %d %d %d %d %d %d %d\n", int_arg(1), uint_arg(1), s32_arg(1), u32_arg(1), long_arg(3),
               ulong_arg(3), s64_arg(3) + u64_arg(3))
}
probe kprobe.function("ksys_read").return {
    if (execname() == "dd" && returnval() == 7)
        printf("ksys_read.return: %d %s %s\n", returnval(), returnstr(1), probefunc())
}
probe syscall.*stat*, syscall.*stat*.return {
    if (execname() == "test")
        printf("%s: %s\n", pp(), name)
}
probe syscall.*stat* {
    if (execname() == "test" && filename == "\"/stap-no-such-file\"")
        printf("stat: %s|%s\n", name, filename)
}'

# The helper functions in a begin probe: exact results.
sc_funcs='
probe begin {
    println(ctime(0))
    println(ctime(2147483647))
    println(ctime(-2147483648))
    println(ctime(1000000000))
    println(errno_str(2), " ", errno_str(-13), " ", errno_str(3333), " ", errno_str(512), " ", errno_str(0))
    println(return_str(1, -2), "|", return_str(1, 42), "|", return_str(2, 255), "|", return_str(3, 8), "|",
            return_str(1, -5000), "|", return_str(2, -22))
    println(string_quoted("a\"b\\c\n\t\r"), string_quoted(""))
    println(user_string_quoted(0), " ", user_string_quoted(16), " ", kernel_string_quoted(0),
            " ", user_string_n_quoted(0, 3))
    println(user_long(16), " ", user_int(16), " ", user_char(16), " ", user_uint64(16))
    println(_sys_open_flag_str(577), " ", _sys_open_flag_str(0x80000), " ", _sys_open_flag_str(0),
            " ", _sys_open_flag_str(2 + 0x800 + 0x20000000))
    println(_at_flag_str(0x100), " ", _at_flag_str(0x1100), " ", _at_flag_str(0), " ", _dfd_str(-100), " ", _dfd_str(3))
    println(__fork_flags(0x1200011), " ", __fork_flags(0x3d0f00), " ", __fork_flags(0))
    println(__get_argv(0, 0), " ", __count_envp(0), " ", __get_argv(16, 0), " ", __count_envp(16))
    printf("[%s] [%s] [%s]\n", probefunc(), ppfunc(), pp())
    println(task_current() != 0)
    exit()
}'

# Faults: each a located script error, the run ending with status 1, no oops. One module, t_sc_f, holds them
# all, fault K on line K + 1, each probe returning at once unless the global fault_sel is K: each run
# (staprun t_sc_f.ko fault_sel=K) meets fault K alone.
fault_cases=(
    "t_sc_fu|probe syscall.openat { if (filename == \"\\\"/stap-fault\\\"\") println(user_string(16)) }|ERROR: user string copy fault at 0x10 near"
    "t_sc_fk|probe begin { println(kernel_long(0)) }|ERROR: kernel read fault at 0x0 near"
    "t_sc_fs|probe begin { println(kernel_string(-4096)) }|ERROR: kernel string copy fault at 0xfffffffffffff000 near"
    "t_sc_fa|probe begin { println(int_arg(1)) }|ERROR: cannot access function arguments in this probe (no registers) near"
    "t_sc_ft|probe begin { println(ctime(2147483648)) }|ERROR: ctime: time 2147483648 out of range near"
)

build() {
    local c name script
    $STAP -p4 -m t_sc_dd -e "$sc_dd" >/dev/null
    $STAP -p4 -m t_sc_funcs -e "$sc_funcs" >/dev/null
    local faults='global fault_sel' k=0
    for c in "${fault_cases[@]}"; do
        IFS='|' read -r name script _ <<<"$c"
        k=$((k + 1))
        faults+=$'\n'"${script/\{/\{ if (fault_sel != $k) next;}"
    done
    $STAP -p4 -m t_sc_f -e "$faults" >/dev/null
    # every syscall entry and return while dd runs: armed once an open of /stap-ready is seen,
    # ended by an open of /stap-done (a fixed time could end before dd ran on a slow guest)
    $STAP -p4 -m t_sc_all -e '
global calls, rets, ready
probe syscall.* { calls[name]++ }
probe syscall.*.return { rets[name]++ }
probe syscall.openat {
    if (filename == "\"/stap-ready\"") {
        if (!ready)
            println("ready")
        ready = 1
    } else if (filename == "\"/stap-done\"")
        exit()
}
probe end {
    foreach (k in calls)
        printf("call %s %d\n", k, calls[k])
    foreach (k in rets)
        printf("return %s %d\n", k, rets[k])
}' >/dev/null
    # more probe points than STP_INLINE_SITES (runtime/core/limits.h): the ~700 sites' trampolines share one
    # out-of-line copy of the hit path (a quarter of this module's build); a module of one probe inlines it
    (( $(nm t_sc_all.ko | grep -c ' t stp_run_probe[.a-z0-9]*$') >= 1 ))
    [[ $(nm t_sc_funcs.ko | grep -c ' stp_run_probe') == 0 ]]
    # an array named in more places than STP_MAP_INLINE_SITES (calls, rets: ~700 handlers each) has one
    # out-of-line copy of its slot code, called (without it gcc spent 13 of this module's 22 s inlining it);
    # t_sc_dd's want, named in three, is inlined where it is used
    (( $(nm t_sc_all.ko | grep -c ' t gm_calls__slot[.a-z0-9]*$') >= 1 ))
    [[ $(nm t_sc_dd.ko | grep -c ' gm_want__') == 0 ]]
    # the names the aliases give (the set syscall.* may report)
    grep -o '^	name = "[a-z0-9_]*"' "$TOP/tapset/linux/x86_64/syscalls.stp" | cut -d'"' -f2 | sort -u >names
}

# wait_for FILE TEXT: until FILE has a line TEXT (30 s at most), opening /stap-ready meanwhile.
wait_for() {
    local i
    for ((i = 0; i < 300; i++)); do
        file_has "$1" "^$2\$" && return 0
        { : </stap-ready; } 2>/dev/null || true   # the open the probe waits for (bash's own: no program)
        nap 0.1
    done
    return 1
}

guest() {
    local c name rc run
    # dd's calls
    staprun t_sc_dd.ko >dd.out 2>dd.err &
    run=$!
    wait_for dd.out ready
    dd if=/dev/zero of=/dev/null bs=7 count=3 2>dd.log
    not dd if=/stap-no-such-file of=/dev/null bs=7 count=1 2>>dd.log
    not /usr/bin/test -e /stap-no-such-file
    { : </stap-done; } 2>/dev/null || true   # the open that ends the run (bash's own: no program)
    rc=0; wait $run || rc=$?
    echo "t_sc_dd exit $rc"

    staprun t_sc_funcs.ko >funcs.out 2>funcs.err
    echo "t_sc_funcs exit 0"

    local k=0
    for c in "${fault_cases[@]}"; do
        IFS='|' read -r name _ _ <<<"$c"
        k=$((k + 1))
        staprun t_sc_f.ko fault_sel=$k >"$name.out" 2>"$name.err" &
        run=$!
        # the user string fault needs an open of /stap-fault while the probes are armed (bash's own: no program)
        while kill -0 $run 2>/dev/null; do
            { : </stap-fault; } 2>/dev/null || true
            nap 0.2
        done
        rc=0; wait $run || rc=$?
        echo "$name exit $rc"
        not loaded t_sc_f
    done

    staprun t_sc_all.ko >all.out 2>all.err &
    run=$!
    wait_for all.out ready
    dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null
    { : </stap-done; } 2>/dev/null || true   # the open that ends the run (bash's own: no program)
    rc=0; wait $run || rc=$?
    echo "t_sc_all exit $rc"
}

check() {
    local c name expected
    grep -qx 't_sc_dd exit 0' out || { cat out; cat dd.err; return 1; }
    # hits skipped for a lock (its openat probes write globals on every process's openat: under
    # emulation a vCPU can be descheduled holding one) are reported; the lines below must all be there
    only_skip_warnings dd.err || { cat dd.err; return 1; }

    # openat of dd: exact arguments
    [[ $(grep '^openat:' dd.out) == 'openat: openat|-100|AT_FDCWD|"/dev/zero"|0|O_RDONLY|0|AT_FDCWD, "/dev/zero", O_RDONLY|__x64_sys_openat|kprobe.function("__x64_sys_openat")
openat: openat|-100|AT_FDCWD|"/dev/null"|577|O_WRONLY|O_CREAT|O_TRUNC|0666|AT_FDCWD, "/dev/null", O_WRONLY|O_CREAT|O_TRUNC, 0666|__x64_sys_openat|kprobe.function("__x64_sys_openat")
openat: openat|-100|AT_FDCWD|"/stap-no-such-file"|0|O_RDONLY|0|AT_FDCWD, "/stap-no-such-file", O_RDONLY|__x64_sys_openat|kprobe.function("__x64_sys_openat")' ]] ||
        { echo "openat lines:"; grep '^openat:' dd.out; return 1; }
    [[ $(grep '^user_string:' dd.out) == 'user_string: /dev/zero|/dev|"/dev"...
user_string: /dev/null|/dev|"/dev"...
user_string: /stap-no-such-file|/sta|"/sta"...' ]] || { grep '^user_string:' dd.out; return 1; }
    [[ $(grep -c '^regs: 1 1 1 1$' dd.out) == 3 ]] || { grep '^regs:' dd.out; return 1; }
    # (the descriptor: dd opens, then moves it to 0 or 1 with dup2)
    grep '^openat.return:' dd.out >ret
    [[ $(wc -l <ret) == 3 ]] && grep -Eqx 'openat.return: openat\|([0-9]+)\|\1\|__x64_sys_openat' <(sed -n 1p ret) &&
        grep -Eqx 'openat.return: openat\|([0-9]+)\|\1\|__x64_sys_openat' <(sed -n 2p ret) &&
        grep -qx 'openat.return: openat|-2|-2 (ENOENT)|__x64_sys_openat' <(sed -n 3p ret) || { cat ret; return 1; }

    # bs=7 count=3: three reads of 7 bytes from fd 0, three writes to fd 1
    [[ $(grep -c '^read: read|0|7|__x64_sys_read$' dd.out) == 3 ]] || { grep '^read' dd.out; return 1; }
    [[ $(grep -c '^read.return: read|7|7$' dd.out) == 3 ]] || { grep '^read' dd.out; return 1; }
    [[ $(grep -c '^write: write|1|7$' dd.out) == 3 ]] || { grep '^write' dd.out; return 1; }
    [[ $(grep -c '^ksys_read: 0 0 0 0 7 7 14$' dd.out) == 3 ]] || { grep '^ksys_read' dd.out; return 1; }
    [[ $(grep -c '^ksys_read.return: 7 7 ksys_read$' dd.out) == 3 ]] || { grep '^ksys_read' dd.out; return 1; }

    # /usr/bin/test -e: glibc's stat is newfstatat (syscall.fstatat) or statx; the file name and ENOENT
    grep -Eqx 'stat: (fstatat|statx|stat|lstat)\|"/stap-no-such-file"' dd.out || { grep 'stat' dd.out; return 1; }
    grep -Eqx 'kprobe.function\("__x64_sys_new(fstatat|stat|lstat)"\): (fstatat|stat|lstat)|kprobe.function\("__x64_sys_statx"\): statx' dd.out ||
        { echo "no stat entry line:"; grep 'kprobe' dd.out; return 1; }
    grep -Eqx 'kprobe.function\("__x64_sys_[a-z0-9_]+"\).return: [a-z0-9_]+' dd.out ||
        { echo "no stat return line:"; grep 'kprobe' dd.out; return 1; }

    # the helpers
    grep -qx 't_sc_funcs exit 0' out && [[ ! -s funcs.err ]] || { cat funcs.err; return 1; }
    diff -u - funcs.out <<'EOF'
Thu Jan  1 00:00:00 1970
Tue Jan 19 03:14:07 2038
Fri Dec 13 20:45:52 1901
Sun Sep  9 01:46:40 2001
ENOENT EACCES E#3333 ERESTARTSYS E#0
-2 (ENOENT)|42|0xff|010|-5000|-22 (EINVAL)
"a\"b\\c\n\t\r"""
NULL 0x10 NULL NULL
0 0 0 0
O_WRONLY|O_CREAT|O_TRUNC O_RDONLY|O_CLOEXEC O_RDONLY O_RDWR|O_NONBLOCK|0x20000000
AT_SYMLINK_NOFOLLOW AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH 0x0 AT_FDCWD 3
CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID 0
NULL NULL [0x10] 0x10
[] [] [begin]
1
EOF

    # faults: a located error (fault K on line K + 1 of t_sc_f), exit 1, the module gone, nothing printed
    local k=0
    for c in "${fault_cases[@]}"; do
        IFS='|' read -r name _ expected <<<"$c"
        k=$((k + 1))
        grep -qx "$name exit 1" out || { grep "^$name" out; cat "$name.err"; return 1; }
        grep -q "^$expected .* at <input>:$((k + 1)):[0-9]*$" "$name.err" || { echo "$name: want '$expected'"; cat "$name.err"; return 1; }
        [[ ! -s $name.out ]] || { echo "$name printed:"; cat "$name.out"; return 1; }
    done

    # syscall.* and syscall.*.return: known names only, read and write among them
    grep -qx 't_sc_all exit 0' out || { grep '^t_sc_all' out; cat all.err; return 1; }
    sed 1d all.out >all.calls
    [[ $(sed -n 1p all.out) == ready ]] || { echo "all.out does not start with ready"; return 1; }
    not grep -vE '^(call|return) [a-z0-9_]+ [0-9]+$' all.calls
    awk 'NR == FNR { known[$1] = 1; next } !($2 in known) { print "unknown syscall name: " $2; bad = 1 }
         END { exit bad }' names all.calls
    # dd's 100 reads and writes of one byte at least
    awk '$3 >= 100 { seen[$1 " " $2] = 1 }
         END { exit !(("call read" in seen) && ("call write" in seen) && ("return read" in seen) &&
                      ("return write" in seen)) }' all.calls || { echo "no 100 reads and writes:"; cat all.calls; return 1; }
}
