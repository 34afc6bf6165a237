# the tapset library in pass 2: syscall.NAME aliases, syscall.* and syscall.*.return, every helper
# function with its documented signature and its C compiled (-p4); each tapset file parses.
# Used by tests/run (issue 4).
cost_s=25

# The functions of man/stap.1 "TAPSET FUNCTIONS", as pass 2 prints them.
signatures=(
    'user_string:string (addr:long)'
    'user_string_n:string (addr:long, n:long)'
    'user_string_quoted:string (addr:long)'
    'user_string_n_quoted:string (addr:long, n:long)'
    'user_long:long (addr:long)'
    'user_ulong:long (addr:long)'
    'user_int:long (addr:long)'
    'user_short:long (addr:long)'
    'user_ushort:long (addr:long)'
    'user_char:long (addr:long)'
    'user_int8:long (addr:long)'
    'user_uint8:long (addr:long)'
    'user_int16:long (addr:long)'
    'user_uint16:long (addr:long)'
    'user_int32:long (addr:long)'
    'user_uint32:long (addr:long)'
    'user_int64:long (addr:long)'
    'user_uint64:long (addr:long)'
    'kernel_string:string (addr:long)'
    'kernel_string_n:string (addr:long, n:long)'
    'kernel_string_quoted:string (addr:long)'
    'kernel_long:long (addr:long)'
    'kernel_int:long (addr:long)'
    'kernel_short:long (addr:long)'
    'kernel_char:long (addr:long)'
    'kernel_pointer:long (addr:long)'
    'substr:string (str:string, start:long, length:long)'
    'stringat:long (str:string, pos:long)'
    'isinstr:long (s1:string, s2:string)'
    'strpos:long (s1:string, s2:string)'
    'str_replace:string (prnt_str:string, srch_str:string, rplc_str:string)'
    'strtol:long (str:string, base:long)'
    'isdigit:long (str:string)'
    'text_str:string (input:string)'
    'text_strn:string (input:string, len:long, quoted:long)'
    'string_quoted:string (str:string)'
    'tokenize:string (input:string, delim:string)'
    'returnval:long ()'
    'returnstr:string (format:long)'
    'return_str:string (format:long, ret:long)'
    'errno_str:string (err:long)'
    'pointer_arg:long (n:long)'
    'int_arg:long (n:long)'
    'uint_arg:long (n:long)'
    'long_arg:long (n:long)'
    'ulong_arg:long (n:long)'
    's32_arg:long (n:long)'
    'u32_arg:long (n:long)'
    's64_arg:long (n:long)'
    'u64_arg:long (n:long)'
    'probefunc:string ()'
    'ppfunc:string ()'
    'ctime:string (epochsecs:long)'
    'task_current:long ()'
)

run() {
    source "$TOP/tests/lib/assert.sh"
    local tapset=$TOP/tapset f sig calls="" nalias
    # every tapset file parses on its own
    while IFS= read -r f; do
        expect_ok -p1 "$f" || return 1
    done < <(find "$tapset" -name '*.stp')

    # one alias: its prologue's variables are the probe's, with their types
    expect_ok -p2 -r "$KVER" -e 'probe syscall.read { printf("%d %d %p %s %s\n", fd, count, buf_uaddr, argstr, name) }'
    grep -qx 'kprobe.function("__x64_sys_read") /\* <- syscall.read \*/' stdout
    grep -qx '  fd:long' stdout && grep -qx '  count:long' stdout && grep -qx '  argstr:string' stdout
    grep -q '^__sc_int:long (n:long) .*registers.stp' stdout
    expect_ok -p2 -r "$KVER" -e 'probe syscall.openat.return { printf("%s %d %s\n", name, retval, retstr) }'
    grep -qx 'kprobe.function("__x64_sys_openat").return /\* <- syscall.openat.return \*/' stdout
    grep -qx '  retstr:string' stdout
    # hand-written ones: SystemTap's names (stat probes the kernel's newstat)
    expect_ok -p2 -r "$KVER" -e 'probe syscall.openat { printf("%s %s %d %#o %s\n", dfd_str, filename, flags, mode, flags_str) }
        probe syscall.stat { println(filename) } probe syscall.fstatat { println(path, dirfd_str) }
        probe syscall.execve { println(args, env_str) } probe syscall.clone { println(clone_flags) }'
    grep -qx 'kprobe.function("__x64_sys_newstat") /\* <- syscall.stat \*/' stdout
    grep -qx 'kprobe.function("__x64_sys_newfstatat") /\* <- syscall.fstatat \*/' stdout

    # syscall.* and syscall.*.return: every alias of the generated file whose function the
    # kernel has (all of them when the translator has no symbol table for -r KVER)
    nalias=$(grep -c '^probe syscall\.[a-z0-9_]* = kprobe' "$tapset/linux/x86_64/syscalls.stp")
    (( nalias > 300 ))
    local vmlinux=/usr/lib/debug/boot/vmlinux-$KVER
    if [[ -r $vmlinux ]]; then
        nalias=$(sed -n 's/^probe syscall\.[a-z0-9_]* = kprobe\.function("\([a-z0-9_]*\)").*/\1/p' \
                     "$tapset/linux/x86_64/syscalls.stp" |
                 grep -cFxf <(nm "$vmlinux" | awk '$2 ~ /^[TtWw]$/ { print $3 }'))
        (( nalias > 300 ))
    fi
    expect_ok -p2 -r "$KVER" -e 'global calls; probe syscall.* { calls[name]++ }'
    [[ $(grep -c '^kprobe.function("__x64_sys_[a-z0-9_]*") /\* <- syscall\.[a-z0-9_]* <- syscall\.\* \*/$' stdout) == "$nalias" ]]
    expect_ok -p2 -r "$KVER" -e 'global calls; probe syscall.*.return { calls[name] <<< retval }'
    [[ $(grep -c '^kprobe.function("__x64_sys_[a-z0-9_]*").return /\* <- syscall\.[a-z0-9_]*\.return <- syscall\.\*\.return \*/$' stdout) == "$nalias" ]]
    # syscall.*stat: filename where the alias has it, "" where it has none (fstat)
    expect_ok -p2 -r "$KVER" -e 'probe syscall.*stat { printf("%s %s\n", name, filename) }'
    grep -qx 'kprobe.function("__x64_sys_newlstat") /\* <- syscall.lstat <- syscall.\*stat \*/' stdout

    # $params: -L lists them after the alias's variables (nd_syscall.* the same); one bound to its register
    [[ $($STAP -L 'syscall.write') == 'syscall.write name:string fd:long buf_uaddr:long count:long argstr:string $fd:unsigned int $buf:const char* $count:size_t' ]]
    [[ $($STAP -L 'nd_syscall.write') == 'nd_syscall.write name:string fd:long buf_uaddr:long count:long argstr:string $fd:unsigned int $buf:const char* $count:size_t' ]]
    # .return: the parameters (their values at entry) and $return
    [[ $($STAP -L 'syscall.read.return') == 'syscall.read.return name:string retval:long retstr:string $fd:unsigned int $buf:char* $count:size_t $return:long' ]]
    expect_ok -p2 -e 'probe nd_syscall.write { if ($fd == 1) println($count, user_string($buf), $$parms) }'
    grep -qx 'kprobe.function("__x64_sys_write") /\* <- syscall.write <- nd_syscall.write \*/' stdout
    expect_ok -p2 -r "$KVER" -e 'probe nd_syscall.* {} probe nd_syscall.*.return {}'
    [[ $(grep -c '^kprobe.function("__x64_sys_[a-z0-9_]*") /\* <- syscall\.[a-z0-9_]* <- nd_syscall\.[a-z0-9_]* <- nd_syscall\.\* \*/$' stdout) == "$nalias" ]]
    "$STAP" -p2 -e 'probe syscall.openat { println($fd) }' 2>stderr && { echo 'accepted $fd in syscall.openat'; return 1; }
    grep -q "semantic error: '\$fd' is not a parameter of this probe (its parameters: \$dfd, \$filename, \$flags, \$mode)" stderr
    if [[ -r $vmlinux ]]; then
        # syscall_any: the raw_syscalls tracepoints; $statbuf->member through the kernel's struct stat
        expect_ok -p2 -r "$KVER" -e 'probe syscall_any { println(name, syscall_nr) } probe syscall_any.return { println(name, retval) }
            probe syscall.fstat { println($statbuf->st_size) }'
        grep -qx 'kernel.trace("raw_syscalls:sys_enter") /\* <- syscall_any \*/' stdout
        grep -qx 'kernel.trace("raw_syscalls:sys_exit") /\* <- syscall_any.return \*/' stdout
    fi

    # every documented function, called with its documented types
    for sig in "${signatures[@]}"; do
        local name=${sig%%:*} params=${sig#*(} args=""
        params=${params%)}
        local p
        IFS=',' read -ra ps <<<"$params"
        for p in "${ps[@]}"; do
            [[ -n $args ]] && args+=", "
            [[ $p == *:string ]] && args+='"s"' || args+=1
        done
        calls+="println($name($args)); "
    done
    expect_ok -p2 -r "$KVER" -e "probe kprobe.function(\"ksys_read\") { $calls }"
    for sig in "${signatures[@]}"; do
        grep -q "^$(printf '%s' "$sig" | sed 's/[][\.*^$]/\\&/g') " stdout || { echo "not in -p2 output: $sig"; return 1; }
    done
    # the functions are there; the syscall aliases are not pulled in for them
    not grep -q 'syscalls.stp' stdout
    # their embedded C (and the syscall decoders') compiles against the target kernel's headers
    calls+='println(_sys_open_flag_str(1), _at_flag_str(1), _dfd_str(1), __fork_flags(1), __get_argv(1, 0),
        __count_envp(1), __sc_long(1) + __sc_ulong(1) + __sc_int(1) + __sc_uint(1) + __sc_ushort(1))
        println(_get_wc_str(1), _seek_whence_str(2), _mprotect_prot_str(3), _mmap_flags(0x22), _wait4_opt_str(1),
        _sock_family_str(2), _sock_type_str(0x80001), _access_mode_str(6), _fcntl_cmd_str(3), syscall_name(1))'
    expect_ok -p4 -m t_tapset_all -r "$KVER" -e "probe kprobe.function(\"ksys_read\") { $calls }"
    [[ -f t_tapset_all.ko ]]
}
