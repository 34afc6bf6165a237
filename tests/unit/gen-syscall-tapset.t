# gen-syscall-tapset.sh: aliases from a fake kernel tree (syscall_64.tbl, prototypes, #ifdef CONFIG_*),
# hand-written overrides, exact output; the committed syscalls.stp is what the generator makes.
# Used by tests/run (issue 4): scripts/gen-syscall-tapset.sh, scripts/syscall-tapset-overrides.stp.

# fake_tree DIR: a build tree with a syscall table, prototypes and a config.
fake_tree() {
    mkdir -p "$1"/include/generated "$1"/include/config "$1"/include/linux "$1"/arch/x86/entry/syscalls
    echo 'all:' >"$1"/Makefile
    echo '#define UTS_RELEASE "9.9.9-fake"' >"$1"/include/generated/utsrelease.h
    echo 9.9.9 >"$1"/include/config/kernel.release
    echo '#define CONFIG_FROB_NEW 1' >"$1"/include/generated/autoconf.h
    cat >"$1"/arch/x86/entry/syscalls/syscall_64.tbl <<'EOF'
# comment
0	common	read			sys_read
1	common	write			sys_write
2	64	frob			sys_frob
3	x32	xonly			compat_sys_xonly
4	common	noentry
5	common	newfstatat		sys_newfstatat
6	64	nothing			sys_ni_syscall
7	common	setname			sys_setname
8	common	noproto			sys_noproto
9	common	unnamed			sys_unnamed
EOF
    cat >"$1"/include/linux/syscalls.h <<'EOF'
#ifndef CONFIG_ARCH_HAS_SYSCALL_WRAPPER
#ifdef CONFIG_FROB_OLD
asmlinkage long sys_frob(void);
#elif defined(CONFIG_FROB_NEW)
asmlinkage long sys_frob(unsigned int fd, const char __user *path,
			 unsigned long flags, umode_t mode, char __user *buf);
#else
asmlinkage long sys_frob(int);
#endif
asmlinkage long sys_read(unsigned int fd, char __user *buf, size_t count);
asmlinkage long sys_write(unsigned int fd, const char __user *buf, size_t count);
asmlinkage long sys_unnamed(unsigned int, const char __user *, size_t);
asmlinkage long sys_newfstatat(int dfd, const char __user *filename,
			       struct stat __user *statbuf, int flag);
asmlinkage long sys_setname(const char __user *name, int next, loff_t pos);
#endif
EOF
}

run() {
    source "$TOP/tests/lib/assert.sh"
    local gen=$TOP/scripts/gen-syscall-tapset.sh
    fake_tree tree
    "$gen" -o out.stp "$PWD/tree" 2>log
    cat log
    grep -qx "gen-syscall-tapset: out.stp: 7 syscalls (3 hand-written), [0-9]* bytes" log
    grep -q 'no prototype (no arguments shown): noproto$' log
    grep -qx "//   9.9.9-fake = Linux 9.9.9 (syscall_64.tbl)" out.stp
    # the aliases, in table order: 64-bit and common entries only, none for sys_ni_syscall
    [[ $(grep -o '^probe syscall\.[a-z0-9_.]*' out.stp | tr '\n' ' ') == \
        "probe syscall.read probe syscall.read.return probe syscall.write probe syscall.write.return "\
"probe syscall.frob probe syscall.frob.return probe syscall.fstatat probe syscall.fstatat.return "\
"probe syscall.setname probe syscall.setname.return probe syscall.noproto probe syscall.noproto.return "\
"probe syscall.unnamed probe syscall.unnamed.return " ]]
    # a generated pair: #elif branch of the config; fd as a signed int; a path string; flags in
    # hex; mode in octal; a non-const char pointer is a buffer; .return: retval and retstr, the
    # arguments' $names bound to their values at entry
    local frob
    frob=$(sed -n '/^probe syscall.frob = /,/^}/p;/^probe syscall.frob.return = /,/^}/p' out.stp)
    [[ $frob == 'probe syscall.frob = kprobe.function("__x64_sys_frob") ?
{
	@param("$fd", __sc_uint(1), "unsigned int")
	@param("$path", __sc_long(2), "const char __user *")
	@param("$flags", __sc_ulong(3), "unsigned long")
	@param("$mode", __sc_ushort(4), "umode_t")
	@param("$buf", __sc_long(5), "char __user *")
	name = "frob"
	fd = __sc_int(1)
	path_uaddr = __sc_long(2)
	path = user_string_quoted(path_uaddr)
	flags = __sc_ulong(3)
	mode = __sc_ushort(4)
	buf_uaddr = __sc_long(5)
	argstr = sprintf("%d, %s, 0x%x, %#o, %p", fd, path, flags, mode, buf_uaddr)
}
probe syscall.frob.return = kprobe.function("__x64_sys_frob").return ?
{
	@param("$fd", @entry(__sc_uint(1)), "unsigned int")
	@param("$path", @entry(__sc_long(2)), "const char __user *")
	@param("$flags", @entry(__sc_ulong(3)), "unsigned long")
	@param("$mode", @entry(__sc_ushort(4)), "umode_t")
	@param("$buf", @entry(__sc_long(5)), "char __user *")
	@param("$return", returnval(), "long")
	name = "frob"
	retval = returnval()
	retstr = returnstr(1)
}' ]] || { echo "$frob"; return 1; }
    # unnamed parameters; the names the aliases define themselves and keywords are renamed
    grep -q 'argstr = sprintf("%u, %s, %u", arg1, arg2, arg3)' out.stp
    grep -q '	name_str = user_string_quoted(name_uaddr)$' out.stp
    grep -q '	next_arg = __sc_int(2)$' out.stp
    grep -q 'argstr = sprintf("%s, %d, %d", name_str, next_arg, pos)' out.stp
    grep -q 'probe syscall.noproto = kprobe.function("__x64_sys_noproto") ?' out.stp
    # hand-written: the entry aliases of read and write, and fstatat (the kernel's newfstatat)
    # come from the overrides file; read.return is still generated
    grep -q '^	argstr = sprintf("%d, %p, %d", fd, buf_uaddr, count)$' out.stp
    grep -q '^probe syscall.fstatat = kprobe.function("__x64_sys_newfstatat") ?$' out.stp
    grep -q '^	flags_str = _at_flag_str(flags)$' out.stp
    grep -q '^probe syscall.read.return = kprobe.function("__x64_sys_read").return ?$' out.stp
    # the hand-written aliases get the prototype's @param declarations too; unnamed parameters are
    # declared by the names the aliases use
    sed -n '/^probe syscall.fstatat = /,/^}/p' out.stp | grep -qx '	@param("$statbuf", __sc_long(3), "struct stat __user \*")'
    grep -qx '	@param("$arg1", __sc_uint(1), "unsigned int")' out.stp
    # nd_syscall.NAME for every syscall.NAME
    [[ $(grep -c '^probe nd_syscall\.[a-z0-9_]* = syscall\.[a-z0-9_]* {}$' out.stp) == 7 ]]
    [[ $(grep -c '^probe nd_syscall\.[a-z0-9_]*\.return = syscall\.[a-z0-9_]*\.return {}$' out.stp) == 7 ]]
    grep -qx 'probe nd_syscall.fstatat = syscall.fstatat {}' out.stp
    # syscall_name(): the table's numbers with the kernel's names (x32 and entry-less lines left out)
    [[ $(sed -n '/^function syscall_name/,/^%}/p' out.stp | grep -o '\[[0-9]*\] = "[a-z0-9_]*"' | tr '\n' ' ') == \
        '[0] = "read" [1] = "write" [2] = "frob" [5] = "newfstatat" [6] = "nothing" [7] = "setname" [8] = "noproto" [9] = "unnamed" ' ]]
    grep -qx 'probe syscall_any = kernel.trace("raw_syscalls:sys_enter")' out.stp
    grep -qx 'probe syscall_any.return = kernel.trace("raw_syscalls:sys_exit")' out.stp
    # the output parses
    expect_ok -p1 out.stp

    # Debian's split headers: no .tbl; unistd_64.h + syscalls_64.h in the tree, syscalls.h in the
    # tree its Makefile includes
    mkdir -p common/include/linux split/include/generated split/arch/x86/include/generated/asm \
        split/arch/x86/include/generated/uapi/asm
    echo "include $PWD/common/Makefile" >split/Makefile
    echo 'all:' >common/Makefile
    echo '#define UTS_RELEASE "9.9.9-split"' >split/include/generated/utsrelease.h
    cp tree/include/linux/syscalls.h common/include/linux/
    printf '#define __NR_read 0\n#define __NR_frob 2\n#define __NR_gone 3\n' \
        >split/arch/x86/include/generated/uapi/asm/unistd_64.h
    printf '__SYSCALL(0, sys_read)\n__SYSCALL_NORETURN(2, sys_frob)\n__SYSCALL(3, sys_ni_syscall)\n' \
        >split/arch/x86/include/generated/asm/syscalls_64.h
    "$gen" -o split.stp "$PWD/split" 2>log
    grep -qx "gen-syscall-tapset: split.stp: 2 syscalls (1 hand-written), [0-9]* bytes" log
    grep -qx "//   9.9.9-split (unistd_64.h + syscalls_64.h)" split.stp
    # no autoconf.h: the #else prototype (one unnamed int)
    grep -q 'argstr = sprintf("%d", arg1)' split.stp

    # the committed tapset is the generator's output for the kernels it names (when their
    # build trees are installed here)
    local committed=$TOP/tapset/linux/x86_64/syscalls.stp k
    local -a kvers
    read -ra kvers < <(sed -n 's|^// Regenerate: scripts/gen-syscall-tapset.sh ||p' "$committed")
    (( ${#kvers[@]} ))
    for k in "${kvers[@]}"; do
        if [[ ! -d /lib/modules/$k/build ]]; then
            echo "(no build tree for $k: the committed syscalls.stp is not compared)"
            return 0
        fi
    done
    "$gen" -o fresh.stp "${kvers[@]}" 2>/dev/null
    diff -u "$committed" fresh.stp
}
