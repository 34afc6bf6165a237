# Target variables against the real kernel debuginfo: pass-2 errors (with caret) and the C of pass 3
# Used by tests/run (issue 7): dwarf/dwvars.c binding, loc.c locations, types.c members, codegen/targetvars.c.

timeout_s=300

run() {
    source "$TOP/tests/lib/assert.sh"
    if [[ ! -e /usr/lib/debug/boot/vmlinux-$KVER ]]; then
        echo "no kernel debuginfo (/usr/lib/debug/boot/vmlinux-$KVER)"
        exit 77
    fi
    local R=(-r "$KVER") VR='probe kernel.function("vfs_read")'

    # ---- pass 2 errors ----
    expect_error "<input>:1:50: semantic error" "struct file has no member 'f_nosuch'" \
        -p2 "${R[@]}" -e "$VR"' { println($file->f_nosuch) }'
    # the message lists what there is, members of anonymous unions included (f_llist, f_rcuhead of the union f_u)
    grep -q "has no member 'f_nosuch' (its members: f_llist, f_rcuhead, .*, f_path, f_inode, .*, \.\.\.)$" stderr
    # the local ret has no location at the function's entry (the symbol's address)
    local pc
    pc=$(nm "/usr/lib/debug/boot/vmlinux-$KVER" | awk '$3 == "vfs_read" { print $1 }')
    expect_error "<input>:1:45: semantic error" \
        "target variable '\$ret' is not accessible at this address (pc 0x$pc)" \
        -p2 "${R[@]}" -e "$VR"' { println($ret) }'
    expect_error "<input>:1:45: semantic error" "no variable 'nosuch' is visible in vfs_read at this point" \
        -p2 "${R[@]}" -e "$VR"' { println($nosuch) }'
    expect_error "<input>:1:23: semantic error" "target variables like '\$x' can only be used in kernel.function()" \
        -p2 "${R[@]}" -e 'probe begin { println($x) }'
    expect_error "<input>:1:23: semantic error" "target variables like '\$x' can only be used in probes on kernel functions and statements, not in a function" \
        -p2 "${R[@]}" -e 'function f() { return $x } probe begin { f() }'
    expect_error "<input>:1:45: semantic error" "'\$file->f_path' is a struct path, which is not a value" \
        -p2 "${R[@]}" -e "$VR"' { println($file->f_path) }'
    expect_error "<input>:1:37: semantic error" "writing to the target variable '\$count' needs guru mode (-g)" \
        -p2 "${R[@]}" -e "$VR"' { $count = 5 }'
    expect_error "<input>:1:43: semantic error" "'++' cannot be applied to a target variable" \
        -p2 "${R[@]}" -e "$VR"' { $count++ }'
    expect_error "<input>:1:32: semantic error" "type 'no_such_type_xyz' not found in the debuginfo of kernel" \
        -p2 "${R[@]}" -e 'probe begin { println(@cast(0, "no_such_type_xyz")->a) }'
    expect_error "<input>:1:51: semantic error" "'->a' needs a struct or union, or a pointer to one: '\$count' is size_t" \
        -p2 "${R[@]}" -e "$VR"' { println($count->a) }'
    expect_error "<input>:1:49: semantic error" "'->a' needs a struct or union, or a pointer to one: '\$buf' is char*" \
        -p2 "${R[@]}" -e "$VR"' { println($buf->a) }'
    expect_error "<input>:1:51: semantic error" "'[' needs an array or a pointer: '\$count' is size_t" \
        -p2 "${R[@]}" -e "$VR"' { println($count[1]) }'
    expect_error "<input>:1:45: semantic error" "\$return is only available in .return probes" \
        -p2 "${R[@]}" -e "$VR"' { println($return) }'
    expect_error "<input>:1:45: semantic error" "@entry is only available in .return probes" \
        -p2 "${R[@]}" -e "$VR"' { println(@entry($count)) }'
    expect_error "<input>:1:75: semantic error" "@entry cannot use the script variable 'x'" \
        -p2 "${R[@]}" -e "$VR"'.return { x = 1; println(@entry($count + x)) }'
    # d_iname's length as pahole reads it from the DWARF (32 on 6.1, 40 on 6.12)
    local dn
    dn=$(pahole -F dwarf -C dentry "/usr/lib/debug/boot/vmlinux-$KVER" | sed -n 's/.*d_iname\[\([0-9]*\)\];.*/\1/p')
    expect_error "<input>:1:76: semantic error" "index 99 is out of range for '\$file->f_path->dentry->d_iname' ($dn elements)" \
        -p2 "${R[@]}" -e "$VR"' { println($file->f_path->dentry->d_iname[99]) }'
    expect_error "<input>:1:46: semantic error" "cannot take the address of '\$count': it is not in memory" \
        -p2 "${R[@]}" -e "$VR"' { println(&$count) }'
    expect_error "<input>:1:51: semantic error" "'\$\$vars' is a string: '->' and '[' cannot be applied to it" \
        -p2 "${R[@]}" -e "$VR"' { println($$vars->a) }'
    expect_error "<input>:1:45: semantic error" "\$\$return is only available in .return probes" \
        -p2 "${R[@]}" -e "$VR"' { println($$return) }'
    # a body copied to several sites reports its error once
    expect_error "<input>:1:52: semantic error" "no variable 'nosuch' is visible" \
        -p2 "${R[@]}" -e 'probe kernel.function("fsnotify_access") { println($nosuch) }'
    [[ $(grep -c 'semantic error' stderr) == 1 ]] || { cat stderr; return 1; }

    # ---- accepted, with the C they become ----
    # $count is in rdx at vfs_read's entry; $file->f_pos reads 8 signed bytes at its offset (pahole's: 104 on 6.1)
    local fpos
    fpos=$(pahole -F dwarf -C file "/usr/lib/debug/boot/vmlinux-$KVER" | awk '$2 == "f_pos;" { print $(NF - 2) }')
    expect_ok -p3 "${R[@]}" -e "$VR"' { printf("%d %d\n", $count, $file->f_pos) }'
    grep -q 'stp_dw_extract((u64)(c->regs->dx), 0, 8, 0)' stdout
    # the error's place named on the fault path only
    grep -q "STP_DW_READ(t[0-9]*, c, (dwa[0-9]* + (unsigned long)${fpos}L), 8, 1, \"operator '->' at <input>:1:68\", out);" stdout
    not grep -q "c->last_stmt = \"operator '->' at <input>:1:68\";" stdout
    # a stack variable: DW_OP_fbreg from DW_AT_frame_base DW_OP_call_frame_cfa, the CFA from the CFI (6.1's
    # line and frame: the other kernels' differ)
    if [[ $KVER == 6.1.* ]]; then
        expect_ok -p3 "${R[@]}" -e 'probe kernel.statement("do_sys_openat2@fs/open.c:1311") { println($op->open_flag) }'
        grep -q 'dw1_f_cfa = c->regs->sp + (unsigned long)64L;' stdout
        grep -q 'dwl0 = dw1_fb + (unsigned long)-60L;' stdout
    fi
    # a global: DW_OP_addr moved by the KASLR shift of _printk
    expect_ok -p3 "${R[@]}" -e 'probe begin { println(@var("max_threads@kernel/fork.c")) }'
    grep -qE '\(0xffffffff[0-9a-f]+UL \+ \(\(unsigned long\)&_printk - 0xffffffff[0-9a-f]+UL\)\)' stdout
    # bit fields: the byte holding them, shifted and masked
    expect_ok -p3 "${R[@]}" -e 'probe begin { println(@cast(task_current(), "task_struct")->in_execve) }'
    grep -qE 't[0-9]+ = stp_dw_bits\(\(u64\)t[0-9]+, [0-7], 1, 0\);' stdout
    # @defined and @choose_defined are decided here
    expect_ok -p3 "${R[@]}" -e "$VR"' { println(@defined($nosuch), @defined($file->f_pos), @choose_defined($nosuch, 42)) }'
    grep -q 'stp_out_dec(&c->out, 0LL);' stdout
    grep -q 'stp_out_dec(&c->out, 1LL);' stdout
    grep -q 'stp_out_dec(&c->out, 42LL);' stdout
    # .return: the entry function saves @entry values and parameters in the kretprobe's data
    expect_ok -p3 "${R[@]}" -e "$VR"'.return { println($return, @entry($count), $$parms) }'
    grep -q 'static void stp_dwarf_entry_0(struct stp_context \*c)' stdout
    grep -q 'STP_DWARF_KRETPROBE_ENTRY(0)' stdout
    grep -qE '\.entry_size = 520' stdout
    # pretty printers: struct file members, nested structs as {...} (6.12 put f_count, f_lock and f_mode first)
    expect_ok -p3 "${R[@]}" -e "$VR"' { println($file$) }'
    grep -qE 'stp_out_str\(o[0-9]*, "\{(<union>=\{...\}, .f_path=\{...\}, .f_inode=|.f_count=\{...\}, .f_lock=\{...\}, .f_mode=)"\);' stdout
    # guru mode: registers and memory written
    expect_ok -p3 -g "${R[@]}" -e "$VR"' { $count = 5; $file->f_pos = 3 }'
    grep -qE 'c->regs->dx = \(unsigned long\)t[0-9]+;' stdout
    grep -qE "stp_dw_write\(c, \(dwa[0-9]+ \+ \(unsigned long\)${fpos}L\), 8, t[0-9]+\);" stdout
    # @cast in a tapset-style function, any probe
    expect_ok -p2 "${R[@]}" -e 'function pid_of(t) { return @cast(t, "task_struct", "kernel<linux/sched.h>")->pid }
probe begin { println(pid_of(task_current())) }'
    # stap -L: each variable at the site with its C type, in SystemTap's spelling
    expect_ok "${R[@]}" -L 'kernel.function("vfs_read")'
    grep -qE '^kernel\.function\("vfs_read@fs/read_write\.c:[0-9]+"\) \$file:struct file\* \$buf:char\* \$count:size_t \$pos:loff_t\*( |$)' stdout
    expect_ok "${R[@]}" -L 'kernel.function("vfs_read").return'
    grep -qE '^kernel\.function\("vfs_read@fs/read_write\.c:[0-9]+"\)\.return \$return:ssize_t \$file:struct file\*' stdout
}
