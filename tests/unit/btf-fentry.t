# btf-fentry - kernel.function entries typed from BTF get the running kernel's address from /proc/kallsyms, another release's from a real System.map, so that fentry.h arms them through ftrace; without one they stay kprobes
# Used by tests/run (issue 21); tests/guest/stap-e-in-guest.t runs such a module on the guest's running kernel.

# real_system_map FILE: FILE lists functions ("ADDR T NAME" lines), unlike Debian's one-line stub
real_system_map() {
    [[ -r $1 ]] && head -c 4096 "$1" | grep -q ' [Tt] '
}

run() {
    [[ -r /sys/kernel/btf/vmlinux ]] || { echo "the running kernel has no BTF"; exit 77; }
    export SYSTEMTAP_DIR=$PWD/stapdir STAP_DEBUGINFO_PATH=$PWD/nodbg
    mkdir -p nodbg tree/include/config
    # a build tree of the running release: the translator's target is the running kernel
    uname -r >tree/include/config/kernel.release
    echo 'all:' >tree/Makefile
    local script='probe kernel.function("vfs_read") { } probe kernel.function("vfs_read").return { }'
    "$STAP" -v -p3 -r "$PWD/tree" -e "$script" >running.c 2>running.err || { cat running.err; return 1; }
    grep -qx 'kernel.function("vfs_read"): 1 site typed from BTF (/sys/kernel/btf/vmlinux)' running.err
    local addr ref
    addr=$(awk '$3 == "vfs_read" && NF == 3 { print $1; exit }' /proc/kallsyms)
    ref=$(awk '$3 == "register_kprobe" && NF == 3 { print $1; exit }' /proc/kallsyms)
    if [[ -n $addr && $((16#$addr)) != 0 ]]; then
        # the entry at kallsyms's address; the return stays a kretprobe
        grep -qF "$(printf '.symbol = "vfs_read", .offset = 0x0UL, .fentry = 0x%xUL' "$((16#$addr))")" running.c ||
            { echo "no .fentry = 0x$addr:"; grep -n 'symbol = "vfs_read"' running.c; return 1; }
        [[ $(grep -c '\.fentry = ' running.c) == 1 ]]
        if [[ -n $ref ]]; then
            grep -qF "$(printf '#define STP_FENTRY_REF_ADDR 0x%xUL' "$((16#$ref))")" running.c
        else
            # a kernel without kprobes (this host's, perhaps): no reference, so fentry.h stays off
            not grep -q 'STP_FENTRY_REF_ADDR' running.c
        fi
    else
        echo "(/proc/kallsyms shows no addresses here: only the fallback is checked)"
        not grep -q '\.fentry = ' running.c
    fi
    # another release: its image has no symbol table, so its entries stay kprobes when its System.map is a
    # stub (Debian's) or missing; a real one (other distributions', a self-built kernel's) gives addresses
    [[ -n $KVER && $KVER != "$(uname -r)" && -e /boot/vmlinuz-$KVER ]] || return 0
    "$STAP" -p3 -r "$KVER" -e "$script" >other.c 2>other.err || { cat other.err; return 1; }
    grep -q 'symbol = "vfs_read"' other.c
    if real_system_map "/lib/modules/$KVER/build/System.map" || real_system_map "/boot/System.map-$KVER"; then
        [[ $(grep -c '\.fentry = 0x' other.c) == 1 ]] || { echo "a real System.map, but no fentry:"; grep -n fentry other.c; return 1; }
    else
        not grep -q '\.fentry = \|STP_FENTRY_REF_ADDR' other.c
    fi
    # ... unless its tree or /boot has a real System.map (here made from its DWARF's symbols): link-time
    # addresses, the DWARF-typed C's, and the names it lists twice refused as for the running kernel
    local dbg=/usr/lib/debug/boot/vmlinux-$KVER
    [[ -e $dbg ]] || { echo "no $dbg: System.map not checked"; return 0; }
    mkdir -p other/include/generated
    printf '#define UTS_RELEASE "%s"\n' "$KVER" >other/include/generated/utsrelease.h
    echo 'all:' >other/Makefile
    nm "$dbg" >other/System.map
    "$STAP" -p3 -r "$PWD/other" -e "$script" | grep -E 'fentry = |FENTRY_REF' >map.c
    env -u STAP_DEBUGINFO_PATH "$STAP" -p3 -r "$KVER" -e "$script" | grep -E 'fentry = |FENTRY_REF' >dwarf.c
    [[ -s map.c ]] && diff dwarf.c map.c
    echo "ffffffff81000000 t vfs_write" >>other/System.map
    not "$STAP" -p2 -r "$PWD/other" -e 'probe kernel.function("vfs_write") { }' 2>twice.err
    grep -q "the kernel defines more than one function 'vfs_write' (static functions of one name)" twice.err ||
        { cat twice.err; return 1; }
}
