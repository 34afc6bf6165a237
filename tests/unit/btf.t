# The BTF reader (translator/btf/) against the kernel's DWARF: vfs_read's prototype as stap -L shows it (from DWARF, and from BTF), struct file's member offsets as pahole reads them from DWARF, the .BTF found in /boot/vmlinuz the same as vmlinux's, its build id vmlinux's, the C of BTF-typed accesses (function parameters, tracepoint arguments, @cast, computed indexes, pretty printing) the same as the DWARF-typed one, the tracepoints -l/-L list from BTF and the headers' systems as from DWARF, a module's probes from its split BTF (nfs), the errors naming what BTF lacks
# Used by tests/run (issue 21). Driver tests/unit/btf-driver.c.
cost_s=20

run() {
    need_kernel_dwarf
    local vmlinux=/usr/lib/debug/boot/vmlinux-$KVER off size
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -iquote "$TOP/translator" \
        "$TOP/tests/unit/btf-driver.c" "$TOP/translator/btf/reader.c" "$TOP/translator/lib/util.c" -o driver
    # the .BTF section of the DWARF vmlinux, cut out by its offset and size
    read -r off size < <(readelf -SW "$vmlinux" | awk '{ for (i = 1; i < NF; i++) if ($i == ".BTF") print $(i + 3), $(i + 4) }')
    dd if="$vmlinux" of=vmlinux.btf bs=1M iflag=skip_bytes,count_bytes skip=$((0x$off)) count=$((0x$size)) status=none
    ./driver vmlinux.btf vfs_read file f_pos f_inode f_flags f_path >driver.out
    cat driver.out
    # the prototype: what stap -L reads from DWARF (its $ret is a local, which BTF does not have)
    $STAP -r "$KVER" -L 'kernel.function("vfs_read")' >dwarf-l.out
    local params
    params=$(head -1 driver.out | sed 's/^kernel.function("vfs_read") //; s/ -> .*//')
    grep -qF " $params " dwarf-l.out || { echo "BTF: $params"; cat dwarf-l.out; return 1; }
    # the members: pahole's offsets and sizes from DWARF
    pahole -F dwarf -C file "$vmlinux" >pahole.out
    local m want
    for m in f_pos f_inode f_flags f_path; do
        want=$(awk -v m="$m;" 'NF > 4 && $(NF - 4) == m { print $(NF - 2), $(NF - 1) }' pahole.out)
        [[ -n $want ]] || { echo "pahole has no $m"; cat pahole.out; return 1; }
        grep -qx "$m $want" driver.out || { echo "$m: pahole says $want"; return 1; }
    done
    # with DWARF hidden, stap reads the BTF of /boot/vmlinuz (decompressed, cached): the same bytes
    mkdir -p nodbg sysdir
    # (tracepoints: named, with a system, wildcards; @cast: bare and "struct" names, "kernel", [i], &, @defined)
    local script='probe kernel.function("vfs_read") { printf("%d %d %d %d\n", $count, $file->f_pos, $file->f_path->dentry->d_name->len, $buf[2]) }
probe kernel.function("vfs_read").return { printf("%d %d %d %d %s|%s\n", $return, $count, $file->f_inode->i_ino, @entry($count), $$return, $$parms) }
function tgid(p) { return @cast(p, "struct task_struct", "kernel")->tgid }
probe kernel.trace("sched_switch") { printf("%d %d %d %s %d\n", $next->pid, $prev_state, $preempt, $$parms, @cast($prev, "task_struct")->pid) }
probe kernel.trace("sched:sched_process_exec") { printf("%s %d %d %d %d %d %s\n", kernel_string($bprm->filename), $old_pid, tgid($p),
    @defined(@cast($p, "task_struct")->no_such), &@cast($p, "task_struct")->pid - $p, @cast($p, "task_struct")[1]->pid, $$vars) }
probe kernel.trace("sched:sched_wakeup*") { println(@cast($p, "task_struct")->comm[0]) }
probe kernel.function("vfs_write") { i = $count & 7; printf("%d %d %d %d\n", $buf[i], @cast(task_current(), "task_struct")->files->fdt->fd[i] & ~3,
    @cast($file, "file")[i - i]->f_flags, &$file->f_pos - $file) }'
    SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg $STAP -r "$KVER" -v -p3 -e "$script" >btf.c 2>btf.err
    grep -qx 'kernel.trace("sched:sched_wakeup\*"): 2 tracepoints typed from BTF (/boot/vmlinuz-'"$KVER"')' btf.err ||
        { cat btf.err; return 1; }
    local blob
    blob=$(ls sysdir/cache/btf/* | grep -Ev '\.(id|tp)$')
    # -L from BTF: the parameters, as the driver read them
    [[ $(SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg $STAP -r "$KVER" -L 'kernel.function("vfs_read")') == \
       "kernel.function(\"vfs_read\") $params" ]] || { echo "-L from BTF differs"; return 1; }
    cmp vmlinux.btf "$blob" || { echo "the BTF of /boot/vmlinuz-$KVER differs from vmlinux's"; return 1; }
    # and the build id found next to it is vmlinux's
    [[ $(cat "$blob.id") == $(readelf -n "$vmlinux" | awk '/Build ID:/ { print $3; exit }') ]] ||
        { echo "build id $(cat "$blob.id") is not vmlinux's"; return 1; }
    # the C of the accesses typed from BTF is the DWARF-typed one, the kernel's build id included
    # (but for the points' file:line, and the entries' link-time addresses, which only DWARF's symbol
    # table gives: runtime/probes/fentry.h arms BTF's entries with kprobes)
    $STAP -r "$KVER" -p3 -e "$script" >dwarf.c
    grep -q stap_kernel_build_id btf.c
    local drop='/^\/\* probe |\.pp = |stap_script_sha256|^#define STP_FENTRY_REF_ADDR /d; s/, \.fentry = 0x[0-9a-f]+UL(, \.fentry_names = "[^"]*")?//'
    diff <(sed -E "$drop" dwarf.c) <(sed -E "$drop" btf.c) || { echo "generated C differs"; return 1; }
    # pretty printing ($var$, $var$$, $$parms$, $$return$, @cast(...)$) walks the BTF type as it walks DWARF's
    local pscript='probe kernel.function("vfs_read") { println($file$, $file$$, $$parms$, $$parms$$, $file->f_path$) }
probe kernel.function("vfs_read").return { println($$return$, $$parms$) }
probe kernel.trace("sched_switch") { println($prev$, $$parms$$) }
probe kernel.function("do_sys_openat2") { println($how$, $how$$, @cast($how, "open_how")$) }
probe kernel.function("tcp_sendmsg") { println($sk$$, $msg$) }'
    SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg $STAP -r "$KVER" -p3 -e "$pscript" >pbtf.c
    $STAP -r "$KVER" -p3 -e "$pscript" >pdwarf.c
    diff <(sed -E "$drop; /^$/d" pdwarf.c) <(sed -E "$drop; /^$/d" pbtf.c) || { echo "pretty printing from BTF differs"; return 1; }
    # struct file's members, from BTF (6.12 put f_count, f_lock and f_mode first)
    grep -qE 'stp_out_str\(o[0-9]*, "\{(<union>=\{...\}, .f_path=\{...\}, .f_inode=|.f_count=\{...\}, .f_lock=\{...\}, .f_mode=)' pbtf.c
    # every other installed kernel with its DWARF (make deps-kernels): its /boot/vmlinuz's BTF (6.12: zstd) is its
    # vmlinux's, and struct file pretty-printed from it is the same C as from its DWARF
    local k kv
    for kv in $("$TOP/scripts/guest-kver.sh" --all); do
        k=/usr/lib/debug/boot/vmlinux-$kv
        [[ $kv != "$KVER" && -e $k ]] || continue
        read -r off size < <(readelf -SW "$k" | awk '{ for (i = 1; i < NF; i++) if ($i == ".BTF") print $(i + 3), $(i + 4) }')
        dd if="$k" of="vmlinux-$kv.btf" bs=1M iflag=skip_bytes,count_bytes skip=$((0x$off)) count=$((0x$size)) status=none
        SYSTEMTAP_DIR=$PWD/sysdir-$kv STAP_DEBUGINFO_PATH=$PWD/nodbg $STAP -r "$kv" -p3 -e "$pscript" >"pbtf-$kv.c"
        $STAP -r "$kv" -p3 -e "$pscript" >"pdwarf-$kv.c"
        cmp "vmlinux-$kv.btf" "$(ls "sysdir-$kv"/cache/btf/* | grep -Ev '\.(id|tp)$')" || { echo "$kv: vmlinuz's BTF differs"; return 1; }
        diff <(sed -E "$drop; /^$/d" "pdwarf-$kv.c") <(sed -E "$drop; /^$/d" "pbtf-$kv.c") || { echo "$kv: BTF's C differs"; return 1; }
        echo "$kv: vmlinuz's BTF and its C checked"
    done
    # a module probe with the module's DWARF but not the kernel's: @cast takes the module's types, then the
    # kernel's BTF (tcp_sock is not among scsi_mod's), the same C as with the kernel's DWARF
    local mscript='probe module("scsi_mod").function("scsi_prepare_cmd") {
    println(@cast($req, "struct request")->__data_len, @cast(task_current(), "tcp_sock")->snd_cwnd) }'
    local scsi_dbg=/usr/lib/debug/lib/modules/$KVER/kernel/drivers/scsi/scsi_mod.ko
    if [[ -e $scsi_dbg ]]; then
        # (a debuginfo directory holding the module's alone)
        mkdir -p "modonly/lib/modules/$KVER/kernel"
        cp "$scsi_dbg" "modonly/lib/modules/$KVER/kernel/"
        SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/modonly $STAP -r "$KVER" -p3 -e "$mscript" >mbtf.c
        $STAP -r "$KVER" -p3 -e "$mscript" >mdwarf.c
        diff <(sed -E "$drop; /^$/d" mdwarf.c) <(sed -E "$drop; /stap_kernel_build_id|^$/d" mbtf.c) ||
            { echo "a module probe's @cast from BTF differs"; return 1; }
    fi
    echo "generated C: $(wc -l <btf.c) lines, same from BTF and DWARF"
    btf_tracepoint_lists
    btf_stack_params
    btf_unchecked
    btf_modules
    btf_kernel_twice
    btf_errors
    btf_typedef_fallback
}

# A BTF where sched_switch has no __traceiter_ FUNC (renamed in the vmlinux.btf cut above), in an ELF
# where the DWARF is looked for: its btf_trace_sched_switch typedef types it, the unnamed arguments
# are $arg1..., read as DWARF's named ones are.
btf_typedef_fallback() {
    mkdir -p fake/boot
    perl -0777 -pe 's/\0__traceiter_sched_switch\0/\0__traceiteR_sched_switch\0/' vmlinux.btf >renamed.btf
    objcopy -I binary -O elf64-x86-64 --rename-section .data=.BTF renamed.btf "fake/boot/vmlinux-$KVER"
    local fake=(env SYSTEMTAP_DIR=$PWD/sysdir-fake STAP_DEBUGINFO_PATH=$PWD/fake)
    [[ $("${fake[@]}" $STAP -r "$KVER" -L 'kernel.trace("sched:sched_switch")') == \
       'kernel.trace("sched:sched_switch") $arg1:bool $arg2:struct task_struct* $arg3:struct task_struct* $arg4:unsigned int' ]]
    "${fake[@]}" $STAP -r "$KVER" -p3 -m t_tp -e 'probe kernel.trace("sched_switch") { println($arg3->pid, $$parms) }' >typedef.c
    $STAP -r "$KVER" -p3 -m t_tp -e 'probe kernel.trace("sched_switch") { println($next->pid, $$parms) }' >named.c
    local drop='/^\/\* probe |\.pp = |stap_kernel_build_id|stap_script_sha256|^$/d'
    diff <(sed -E "$drop" named.c | sed 's/preempt=/arg1=/; s/ prev=/ arg2=/; s/ next=/ arg3=/; s/prev_state=/arg4=/; s/\$next->pid/$arg3->pid/') \
         <(sed -E "$drop" typedef.c) || { echo "C from the typedef differs"; return 1; }
}

# Every tracepoint of the kernel from BTF, with its system from the headers where they declare it: the
# DWARF list's names, the same system when there is one (the rest: declared in headers Debian does not
# ship, listed by name alone); their arguments as -L shows them from DWARF; the catalog cached.
btf_tracepoint_lists() {
    local nodbg=(env SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg)
    $STAP -r "$KVER" -l 'kernel.trace("*")' >tp-dwarf.list
    "${nodbg[@]}" $STAP -r "$KVER" -vv -l 'kernel.trace("*")' >tp-btf.list 2>tp-btf.err
    grep -q "^Tracepoints of /boot/vmlinuz-$KVER: [0-9]* ([0-9]* in no header), loaded from the cache" tp-btf.err ||
        { cat tp-btf.err; return 1; }
    local names='s/^kernel\.trace\("([^:]*:)?(.*)"\)$/\2/'
    diff <(sed -E "$names" tp-dwarf.list | sort) <(sed -E "$names" tp-btf.list | sort) ||
        { echo "tracepoint names differ"; return 1; }
    local with_sys bare
    with_sys=$(grep -c ':' tp-btf.list)
    bare=$(grep -vc ':' tp-btf.list)
    LC_ALL=C comm -13 tp-dwarf.list <(grep ':' tp-btf.list) >wrong-sys.list
    [[ ! -s wrong-sys.list ]] || { echo "systems differ from DWARF's:"; head wrong-sys.list; return 1; }
    echo "tracepoints from BTF: $with_sys with DWARF's system, $bare in no header"
    (( with_sys >= 550 && bare * 8 < with_sys ))   # 6.1: 601 and 38, 6.12: 707 and 65
    diff <($STAP -r "$KVER" -L 'kernel.trace("sched:*")') <("${nodbg[@]}" $STAP -r "$KVER" -L 'kernel.trace("sched:*")') ||
        { echo "-L of sched:* differs"; return 1; }
}

# Parameters after the sixth, on the stack at entry (x86-64 SysV): BTF places each as DWARF locates it (the
# same offsets from the entry's stack pointer, the same sizes and signedness), and -L marks none of them.
btf_stack_params() {
    local nodbg=(env SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg)
    local sp='probe kernel.function("tcp_v6_send_response") { printf("%d %d %d %d\n", $oif, $rst, $tclass, $label) }'
    "${nodbg[@]}" $STAP -r "$KVER" -p3 -e "$sp" >sbtf.c
    $STAP -r "$KVER" -p3 -e "$sp" >sdwarf.c
    # BTF: "dwlN = c->regs->sp + OFF"; DWARF: the CFA (sp + 8) as frame base, "dwlN = dwM_fb + OFF"
    local b d
    b=$(sed -nE 's/.*= c->regs->sp \+ \(unsigned long\)([0-9]+)L;/\1/p; s/.*STP_DW_READ\(t[0-9]+, c, \(dwl[0-9]+\), ([0-9]), ([01]), "[^"]*", out\);/read \1 \2/p' sbtf.c)
    d=$(sed -nE 's/.*_fb \+ \(unsigned long\)([0-9]+)L;/\1/p; s/.*STP_DW_READ\(t[0-9]+, c, \(dwl[0-9]+\), ([0-9]), ([01]), "[^"]*", out\);/read \1 \2/p' sdwarf.c |
        awk '/^read/ { print; next } { print $1 + 8 }')
    echo "stack parameters from BTF: $(echo $b)"
    [[ $b == "$d" && $(grep -c "^read" <<<"$b") == 4 ]] || { echo "DWARF: $(echo $d)"; return 1; }
    "${nodbg[@]}" $STAP -r "$KVER" -L 'kernel.function("tcp_v6_send_response")' | grep -q ' \$label:__be32 \$priority:u32'
    not grep -q 'needs DWARF' <("${nodbg[@]}" $STAP -r "$KVER" -L 'kernel.function("tcp_v6_send_response")')
}

# A wildcard's sites from BTF are "unchecked" (no symbol table said whether kprobes allow them: vfs_caches_init is
# __init text), so the runtime skips one the kernel refuses with a warning; an exact name is not.
btf_unchecked() {
    local nodbg=(env SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg)
    "${nodbg[@]}" $STAP -r "$KVER" -p3 -e 'probe kernel.function("vfs_caches_i*"), kernel.function("vfs_read") { }' >uc.c
    grep -q '.symbol = "vfs_caches_init".*, .unchecked = 1 },' uc.c
    grep '.symbol = "vfs_read"' uc.c | not grep -q unchecked
    $STAP -r "$KVER" -p3 -e 'probe kernel.function("vfs_rea*") { }' | not grep -q unchecked   # DWARF's sites are checked
}

# A module's probes and @cast without its DWARF: typed from its split BTF (over the kernel's), the same C as from
# DWARF, "MOD:function" for kprobes; a compressed .ko's read as well; what BTF cannot give names the -dbg package, a
# function the module defines twice too.
# module_c_same P SCRIPT SAID: SCRIPT's C typed from BTF (Pbtf.c; -v said SAID) is its C from DWARF (Pdwarf.c)
# but for the kernel's build id (nodbg and drop: btf_modules')
module_c_same() {
    "${nodbg[@]}" $STAP -r "$KVER" -v -p3 -e "$2" >"$1btf.c" 2>"$1btf.err" || { cat "$1btf.err"; return 1; }
    grep -qxF "$3" "$1btf.err" || { cat "$1btf.err"; return 1; }
    $STAP -r "$KVER" -p3 -e "$2" >"$1dwarf.c"
    diff <(sed -E "$drop; /^$/d" "$1dwarf.c") <(sed -E "$drop; /stap_kernel_build_id|^$/d" "$1btf.c") ||
        { echo "$1: the C from BTF differs"; return 1; }
}

btf_modules() {
    local nodbg=(env SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg) ko
    ko=$(find "/lib/modules/$KVER/kernel/fs/nfs" -name 'nfs.ko*' | head -1)
    [[ -n $ko && -e /usr/lib/debug/lib/modules/$KVER/kernel/fs/nfs/nfs.ko ]] ||
        { echo "no nfs module or its DWARF: module BTF not checked"; return 0; }
    local ns='probe module("nfs").function("nfs_file_read") { printf("%d %d %s\n", $iocb->ki_pos, $to->count, $$parms) }
probe module("nfs").function("nfs_file_read").return { println($return, @cast($iocb->ki_filp->f_inode, "struct inode")->i_ino,
    @cast($iocb->ki_filp->f_inode, "struct nfs_inode", "nfs")->cache_validity, $to$) }
function attrtimeo(i) { return @cast(i, "struct nfs_inode", "kernel:nfs")->attrtimeo }
probe module("nfs").function("nfs_getattr") { println(attrtimeo($path->dentry->d_inode), @cast($path->dentry->d_inode, "nfs_inode")->flags) }'
    module_c_same n "$ns" "module(\"nfs\").function(\"nfs_getattr\"): 1 site typed from BTF ($ko)"
    grep -q '.symbol = "nfs:nfs_file_read", .offset = 0x0UL, .module = "nfs"' nbtf.c
    "${nodbg[@]}" $STAP -r "$KVER" -L 'module("nfs").function("nfs_file_read")' | grep -q '^module("nfs").function("nfs_file_read") \$iocb:struct kiocb\* \$to:struct iov_iter\*$'
    # a compressed module, named by its path
    local packed=nfs.ko.xz
    if [[ $ko == *.ko ]]; then xz -c "$ko" >$packed; else packed=nfs${ko##*/nfs}; cp "$ko" $packed; fi
    "${nodbg[@]}" $STAP -r "$KVER" -p3 -e "${ns//module(\"nfs\")/module(\"$PWD/$packed\")}" >nxz.c
    local cols='s/ at <input>:[0-9]+:[0-9]+/ at <input>/; /STP_MODULE_NAME/d'   # (its longer name shifts the columns)
    diff <(sed -E "$drop; /^$/d; $cols" nbtf.c) <(sed -E "$drop; /^$/d; $cols" nxz.c) || { echo "$packed's C differs"; return 1; }
    # the module's tracepoints: the module named as their system, or -d MODULE and the name alone
    local tp='probe kernel.trace("nfs:nfs_fsync_*") { printf("%s %d %d\n", pp(), $inode->i_ino, @defined($error) ? $error : -1) }'
    module_c_same t "$tp" "kernel.trace(\"nfs:nfs_fsync_*\"): 2 tracepoints typed from BTF ($ko)"
    grep -q '.name = "nfs_fsync_exit", .module = "nfs"' tbtf.c
    [[ $("${nodbg[@]}" $STAP -r "$KVER" -L 'kernel.trace("nfs:nfs_fsync_exit")') == \
       'kernel.trace("nfs:nfs_fsync_exit") $inode:struct inode const* $error:int' ]]
    "${nodbg[@]}" $STAP -r "$KVER" -p2 -d nfs -e 'probe kernel.trace("nfs_fsync_exit") { println($error) }' >tname.out
    grep -qx 'kernel.trace("nfs:nfs_fsync_exit") /\* <- kernel.trace("nfs_fsync_exit") \*/' tname.out || { cat tname.out; return 1; }
    # a module named as the system finds its tracepoints of any system: scsi_mod's are of system scsi (its
    # header is the kernel's), as from DWARF
    local sc='kernel.trace("scsi:scsi_dispatch_cmd_start") $cmd:struct scsi_cmnd*'
    [[ $("${nodbg[@]}" $STAP -r "$KVER" -L 'kernel.trace("scsi_mod:scsi_dispatch_cmd_start")') == "$sc" ]]
    [[ $($STAP -r "$KVER" -L 'kernel.trace("scsi_mod:scsi_dispatch_cmd_start")') == "$sc" ]]
    # what BTF cannot give
    not "${nodbg[@]}" $STAP -r "$KVER" -p2 -e 'probe module("nfs").statement("nfs_file_read@fs/nfs/file.c:*") { }' 2>m1.err
    grep -q "module(\"nfs\").statement probes need the module's DWARF (install linux-image-$KVER-dbg)" m1.err || { cat m1.err; return 1; }
    not "${nodbg[@]}" $STAP -r "$KVER" -p2 -e 'probe module("nfs").function("no_such_fn") { }' 2>m2.err
    grep -q "no function 'no_such_fn' in module nfs's BTF ($ko)" m2.err || { cat m2.err; return 1; }
    not "${nodbg[@]}" $STAP -r "$KVER" -p2 -e 'probe module("no_such_mod").function("f") { }' 2>m3.err
    grep -q "no module no_such_mod for kernel $KVER" m3.err || { cat m3.err; return 1; }
    # a name the module's symbol table defines twice (static functions of one name): "MOD:NAME" cannot tell
    # which one, so no name of those is probed, and the error says why
    local m mko dup said=0
    for m in nfs nfsd; do
        mko=$(find "/lib/modules/$KVER/kernel/fs/$m" -name "$m.ko*" | head -1)
        [[ -n $mko ]] || continue
        if [[ $mko == *.ko ]]; then cp "$mko" plain.ko; else xz -dc "$mko" >plain.ko; fi
        for dup in $(readelf -sW plain.ko | awk '$4 == "FUNC" && $7 != "UND" && $8 !~ /\./ { print $8 }' | sort | uniq -d); do
            not "${nodbg[@]}" $STAP -r "$KVER" -p2 -e "probe module(\"$m\").function(\"$dup\") { }" 2>dup.err
            grep -q "module $m defines more than one function '$dup'" dup.err && said=$((said + 1))
        done
    done
    echo "functions defined twice, refused: $said"
    (( said > 0 ))
    echo "module BTF: nfs from $ko, $(grep -c 'typed from BTF' nbtf.err) probe points, the C the same as from DWARF"
}

# The running kernel's functions defined twice (static functions of one name): read from /proc/kallsyms
# once, cached by build id; a name in that list is refused (kprobes' NAME would take either), a glob skips
# it. Checked on this host's running kernel when it has BTF (the list made up when it has no such name).
btf_kernel_twice() {
    [[ -r /sys/kernel/btf/vmlinux && -r /sys/kernel/notes ]] || { echo "running kernel without BTF: kernel names defined twice not checked"; return 0; }
    local nodbg=(env SYSTEMTAP_DIR=$PWD/sysrun STAP_DEBUGINFO_PATH=$PWD/nodbg) list
    "${nodbg[@]}" $STAP -p2 -e 'probe kernel.function("vfs_read") { println($count) }' >/dev/null
    list=$(ls sysrun/cache/btf/*.twice)
    [[ -s $list ]] || { echo "no sysrun/cache/btf/BUILDID.twice"; return 1; }
    diff <(awk '$2 ~ /^[tT]$/ && NF == 3 { print $3 }' /proc/kallsyms | LC_ALL=C sort | uniq -d) "$list" ||
        { echo "$list is not /proc/kallsyms' names defined twice"; return 1; }
    (cat "$list"; echo vfs_read) | LC_ALL=C sort >twice.new && cat twice.new >"$list"
    not "${nodbg[@]}" $STAP -p2 -e 'probe kernel.function("vfs_read") { }' 2>twice.err
    grep -q "the kernel defines more than one function 'vfs_read' (static functions of one name): without the kernel's DWARF" twice.err ||
        { cat twice.err; return 1; }
    "${nodbg[@]}" $STAP -p2 -e 'probe kernel.function("vfs_rea*") { }' >glob.out
    not grep -q '^kernel.function("vfs_read")' glob.out
    grep -q '^kernel.function("vfs_readv") ' glob.out
    echo "running kernel: $(wc -l <"$list") function names defined twice, refused"
}

btf_errors() {
    local nodbg=(env SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg)
    not "${nodbg[@]}" $STAP -r "$KVER" -p2 -e 'probe kernel.trace("sched_switch") { println($pid) }' 2>e1.err
    grep -q "tracepoint sched_switch has no argument 'pid' (its arguments: \$preempt \$prev \$next \$prev_state)" e1.err ||
        { cat e1.err; return 1; }
    not "${nodbg[@]}" $STAP -r "$KVER" -p2 -e 'probe begin { println(@cast(0, "no_such_type")->x) }' 2>e2.err
    grep -q "type 'no_such_type' not found in the kernel's BTF.*linux-image-$KVER-dbg" e2.err || { cat e2.err; return 1; }
    not "${nodbg[@]}" $STAP -r "$KVER" -p2 -g -e 'probe begin { @cast(0, "task_struct")->pid = 1 }' 2>e3.err
    grep -q "typed from BTF cannot be assigned.*linux-image-$KVER-dbg" e3.err || { cat e3.err; return 1; }
    # a system BTF's headers do not give: the note says how to name it
    local bare
    bare=$(grep -vm1 ':' tp-btf.list | sed -E 's/^kernel\.trace\("(.*)"\)$/\1/')
    not "${nodbg[@]}" $STAP -r "$KVER" -p2 -e "probe kernel.trace(\"nosys:$bare\") { }" 2>e4.err
    grep -q "kernel.trace(\"$bare\") finds it by its name alone" e4.err || { cat e4.err; return 1; }
    "${nodbg[@]}" $STAP -r "$KVER" -p2 -e "probe kernel.trace(\"$bare\") { }" >/dev/null
}
