# Target variables in the guest: $count in vfs_read, $return and @entry in .return, $file$ / $$parms, @cast, read faults as script errors
# Used by tests/run (issue 7): DWARF locations at the probe's pc, member chains, pretty printing, kretprobe entry data.

timeout_s=150

have_vmlinux() { [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]]; }

build() {
    have_vmlinux || { echo "no /usr/lib/debug/boot/vmlinux-$KVER" >SKIP; return 0; }
    # $count in a register at vfs_read's entry; dd bs=1 reads one byte at a time
    $STAP -p4 -m t_dvcount -e '
probe kernel.function("vfs_read") { if (execname()=="dd") printf("%s %d\n", execname(), $count) }' >/dev/null
    # .return: $return, @entry($count), $count (implicitly its value at entry), $$return, $$parms at entry
    $STAP -p4 -m t_dvret -e '
probe kernel.function("vfs_read").return {
    if (execname() == "dd")
        printf("%d %d %d %s|%s\n", $return, @entry($count), $count, $$return, $$parms)
}' >/dev/null
    # pretty printers and member chains on a struct file; @cast of the current task
    $STAP -p4 -m t_dvpretty -e '
probe kernel.function("vfs_read") {
    if (execname() != "dd" || $count != 1) next   # the reads of /dev/zero, not of libc
    println($file$)
    println($file->f_path$$)
    println($$parms)
    printf("pos %d mode %d\n", $file->f_pos, ($file->f_mode & 1) != 0)
    printf("name %s\n", kernel_string($file->f_path->dentry->d_name->name))
    printf("iname %s\n", kernel_string($file->f_path->dentry->d_iname))
    printf("cast %d\n", @cast(task_current(), "task_struct")->pid == pid())
    printf("comm %s\n", kernel_string(@cast(task_current(), "task_struct", "kernel<linux/sched.h>")->comm))
    printf("addr %d\n", &$file->f_pos - $file == &@cast(0, "file")->f_pos)
    printf("defined %d %d %d\n", @defined($file->f_pos), @defined($file->no_such_member), @choose_defined($nope, 42))
    exit()
}' >/dev/null
    # a bad kernel pointer: the read faults, the error names the operator; try/catch sees the message
    $STAP -p4 -m t_dvfault -e 'probe begin { println(@cast(0x10, "list_head")->next) }' >/dev/null
    $STAP -p4 -m t_dvcatch -e '
probe begin {
    try { println(@cast(0x10, "list_head")->prev) } catch (msg) { println("caught: ", msg) }
    println("still running")
    exit()
}' >/dev/null
    # a user pointer read as kernel memory in a DWARF probe
    $STAP -p4 -m t_dvuser -e '
probe kernel.function("vfs_read") { if (execname() == "dd") println($buf[0]) }' >/dev/null
}

guest() {
    if [[ -e SKIP ]]; then
        echo "skipped: $(cat SKIP)"
        return 0
    fi
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvcount.ko >count.out
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvret.ko >ret.out
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvpretty.ko >pretty.out
    not staprun t_dvfault.ko >fault.out 2>fault.err
    staprun t_dvcatch.ko >catch.out 2>catch.err
    not staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvuser.ko >user.out 2>user.err
    # the module is gone after each error and the kernel is fine: a last run works
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvcount.ko >again.out
}

check() {
    if [[ -e SKIP ]]; then
        grep -q '^skipped: ' out
        return 0
    fi
    [[ $(cat rc) == 0 ]]
    cat count.out
    (( $(grep -cx 'dd 1' count.out) >= 5 ))
    (( $(grep -cx 'dd 1' again.out) >= 5 ))
    cat ret.out
    (( $(grep -cE '^1 1 1 return=0x1\|file=0x[0-9a-f]+ buf=0x[0-9a-f]+ count=0x1 pos=0x[0-9a-f]+$' ret.out) >= 5 ))
    cat pretty.out
    # struct file: members in order, nested structs and (anonymous) unions as {...}, pointers as %p
    grep -qE '^\{<union>=\{\.\.\.\}, \.f_path=\{\.\.\.\}, \.f_inode=0x[0-9a-f]{16}, \.f_op=0x[0-9a-f]{16}, \.f_lock=\{\.\.\.\}, .*, \.f_pos=0, .*, \.f_ep=0x0{16}, .*\}$' pretty.out
    grep -qE '^\{\.mnt=0x[0-9a-f]{16}, \.dentry=0x[0-9a-f]{16}\}$' pretty.out
    grep -qE '^file=0x[0-9a-f]+ buf=0x[0-9a-f]+ count=0x1 pos=0x[0-9a-f]+$' pretty.out
    grep -qx 'pos 0 mode 1' pretty.out
    grep -qx 'name zero' pretty.out
    grep -qx 'iname zero' pretty.out
    grep -qx 'cast 1' pretty.out
    grep -qx 'comm dd' pretty.out
    grep -qx 'addr 1' pretty.out
    grep -qx 'defined 1 0 42' pretty.out
    cat fault.err
    grep -qx "ERROR: read fault at 0x10 near operator '->' at <input>:1:47" fault.err
    cat catch.out
    grep -qx 'caught: read fault at 0x18' catch.out
    grep -qx 'still running' catch.out
    cat user.err
    grep -qE "^ERROR: read fault at 0x[0-9a-f]+ near operator '\[' at <input>:2:73$" user.err
}
