# Target variables typed from the kernel's BTF with its DWARF hidden (and entries through ftrace with a System.map): $count, $file->f_path->dentry->d_name->len, $return, $count, @entry, $$return and $$parms in .return of vfs_read; tracepoint arguments ($bprm->filename, $old_pid, $$parms of sched_process_exec, $p of sched:sched_process_exit), @cast chains, pretty printing ($var$, $var$$: the same text as from DWARF)
# Used by tests/run (issue 21): STAP_DEBUGINFO_PATH points at an empty directory, so the BTF of /boot/vmlinuz-KVER
# types the probes; -v says so; what BTF cannot give (locals, kernel.statement) names the -dbg package.

timeout_s=120

# ksys_read's entry; the command records its kprobes (none when ftrace runs it) and its ftrace line
fentry='global n
probe kernel.function("ksys_read") { if (execname() == "dd" && $count == 3) n++ }
probe end { printf("reads %d\n", n) }'
fentry_cmd='grep -c " ksys_read+0x" /sys/kernel/debug/kprobes/list >sm.kprobes; grep "^ksys_read " /sys/kernel/tracing/enabled_functions >sm.ftrace; dd if=/dev/zero of=/dev/null bs=3 count=7 2>/dev/null'

# symbol_map_tree DIR VMLINUX: DIR, the kernel's build tree (symlinks) with a System.map of VMLINUX's symbols
symbol_map_tree() {
    local real e
    real=$(readlink -f "/lib/modules/$KVER/build")
    mkdir -p "$1"
    for e in "$real"/* "$real"/.config "$real"/.kernelvariables; do
        [[ -e $e ]] && ln -sfn "$(readlink -f "$e")" "$1/$(basename "$e")"
    done
    nm "$2" >"$1/System.map"
}

build() {
    mkdir -p nodbg
    export STAP_DEBUGINFO_PATH=$PWD/nodbg
    # dd reads /dev/zero 3 bytes at a time, 4 times: d_name "zero" has length 4 (an anonymous
    # struct inside struct qstr's union), .return sees $return and $count saved at entry
    $STAP -v -p4 -m t_btfvars -e '
probe kernel.function("vfs_read") {
    if (execname() == "dd" && $count == 3)
        printf("entry %d %d %d\n", $count, $file->f_pos, $file->f_path->dentry->d_name->len)
}
probe kernel.function("vfs_read").return {
    if (execname() == "dd" && $count == 3)
        printf("return %d %d %d %s|%s\n", $return, $count, @entry($count), $$return, $$parms)
}
# dd starting and exiting: the arguments of the tracepoints, the task through @cast (a bare and a "struct" name)
probe kernel.trace("sched_process_exec") {
    if (execname() == "dd")
        printf("exec %s %d %d %d %s %s\n", kernel_string($bprm->filename), $old_pid == pid(),
               @cast($p, "task_struct")->pid == pid(), @cast($p, "struct task_struct", "kernel")->tgid == pid(),
               kernel_string(@cast($p, "task_struct")->comm), $$parms)
}
probe kernel.trace("sched:sched_process_exit") {
    if (execname() == "dd")
        printf("exit %d %d\n", $p->pid == pid(), @cast($p, "task_struct")->real_parent->pid == ppid())
}' >/dev/null 2>build.err
    grep -qx 'kernel.function("vfs_read"): 1 site typed from BTF (/boot/vmlinuz-'"$KVER"')' build.err ||
        { cat build.err; return 1; }
    grep -qx 'kernel.trace("sched:sched_process_exit"): 1 tracepoint typed from BTF (/boot/vmlinuz-'"$KVER"')' build.err ||
        { cat build.err; return 1; }
    # pretty printing from BTF: the same text as from DWARF (a module of each)
    local pp='probe kernel.function("vfs_read") {
    if (execname() == "dd" && $count == 3) printf("pretty %s %s\n", $file->f_path->dentry->d_name$, $file->f_path->dentry->d_name$$)
}'
    $STAP -p4 -m t_btfpp -e "$pp" >/dev/null
    if [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]]; then
        env -u STAP_DEBUGINFO_PATH $STAP -p4 -m t_dwpp -e "$pp" >/dev/null
    fi
    # with a real System.map (here made from the DWARF's symbols: other distributions ship one; Debian's is a
    # stub), entries typed from BTF have link-time addresses: armed through ftrace, their C the DWARF-typed one's
    if [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]]; then
        symbol_map_tree smtree "/usr/lib/debug/boot/vmlinux-$KVER"
        "$TOP/build/bin/stap" -r "$PWD/smtree" -p4 -m t_btfsm -e "$fentry" >/dev/null
        "$TOP/build/bin/stap" -r "$PWD/smtree" -p3 -e "$fentry" | grep -E 'fentry = |FENTRY_REF' >btfsm.c
        env -u STAP_DEBUGINFO_PATH $STAP -p3 -e "$fentry" | grep -E 'fentry = |FENTRY_REF' >dwsm.c
        [[ -s btfsm.c ]] && diff dwsm.c btfsm.c
    fi
    # what needs DWARF says which package holds it
    not $STAP -p2 -e 'probe kernel.function("vfs_read") { println($ret) }' 2>local.err
    grep -q "no parameter 'ret' in vfs_read (its parameters: \$file \$buf \$count \$pos).*linux-image-$KVER-dbg" local.err ||
        { cat local.err; return 1; }
    not $STAP -p2 -e 'probe kernel.statement("vfs_read@fs/read_write.c:460") { }' 2>stmt.err
    grep -q "kernel.statement probes need the kernel's DWARF (install linux-image-$KVER-dbg)" stmt.err ||
        { cat stmt.err; return 1; }
}

guest() {
    staprun -c 'dd if=/dev/zero of=/dev/null bs=3 count=4 2>/dev/null' t_btfvars.ko >vars.out
    staprun -c 'dd if=/dev/zero of=/dev/null bs=3 count=1 2>/dev/null' t_btfpp.ko >btfpp.out
    if [[ -e t_dwpp.ko ]]; then
        staprun -c 'dd if=/dev/zero of=/dev/null bs=3 count=1 2>/dev/null' t_dwpp.ko >dwpp.out
    fi
    if [[ -e t_btfsm.ko ]]; then
        staprun -c "sh -c '$fentry_cmd'" t_btfsm.ko >sm.out
    fi
}

check() {
    [[ $(cat rc) == 0 ]]
    cat vars.out
    [[ $(grep -cx 'entry 3 0 4' vars.out) == 4 ]]
    [[ $(grep -cE '^return 3 3 3 return=0x3\|file=0x[0-9a-f]+ buf=0x[0-9a-f]+ count=0x3 pos=0x[0-9a-f]+$' vars.out) == 4 ]]
    grep -Eqx 'exec \S*/dd 1 1 1 dd p=0x[0-9a-f]+ old_pid=0x[0-9a-f]+ bprm=0x[0-9a-f]+' vars.out
    grep -qx 'exit 1 1' vars.out
    [[ $(wc -l <vars.out) == 10 ]]
    cat btfpp.out
    grep -q '^pretty {.*"zero".*} {.*"zero".*}$' btfpp.out
    [[ ! -e dwpp.out ]] || diff dwpp.out btfpp.out
    if [[ -e t_btfsm.ko ]]; then
        [[ $(cat sm.out) == "reads 7" ]] || { cat sm.out; return 1; }
        [[ $(cat sm.kprobes) == 0 ]] || { echo "ksys_read has a kprobe"; return 1; }
        grep -q "^ksys_read .*stp_fentry_hit" sm.ftrace || { echo "not through stp_fentry_hit:"; cat sm.ftrace; return 1; }
    fi
}
