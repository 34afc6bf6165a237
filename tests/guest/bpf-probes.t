# the BPF runtime's kernel probe families in a kernel that has kprobes: kernel.function entries and returns
# with $count, $return and @entry($count) (dd's reads of one byte), kprobe.function, a BTF tracepoint's argument, typed for KVER,
# run by staprun NAME.bo with -c (dd starts once every probe is armed: the counts are exact); and an object built for
# another release (6.12 for 6.1, 6.1 for 6.12), whose members' offsets are relocated at load to this kernel's (CO-RE);
# with the kernel's DWARF, @var of a global (found by name at load: __ksym) and of a static (at this release's address)
# Used by tests/run (issue 48): translator/bpfprog/ (kprobes placed by the providers), runtime/bpf/targetvars.h.

build() {
    $STAP --runtime=bpf -p4 -m t_bpfk -e '
global reads, ones, rets, ent, kp, execs
probe kernel.function("ksys_read") { if (execname() == "dd") { reads++; if ($count == 1) ones++ } }
probe kernel.function("ksys_read").return { if (execname() == "dd" && $return == 1) { rets++; if (@entry($count) == 1) ent++ } }
probe kprobe.function("ksys_read") { if (execname() == "dd") kp++ }
probe kernel.trace("sched_process_exec") { if (execname() == "dd" && $p->pid == pid()) execs++ }
probe end { printf("ones=%d rets=%d entry=%d kprobe=function:%d execs=%d\n", ones, rets, ent, kp == reads, execs) }' >p4.out
    [[ $(cat p4.out) == t_bpfk.bo && -f t_bpfk.bo ]]
    if [[ -z ${FROM_BTF:-} ]]; then
        $STAP --runtime=bpf -p4 -m t_bpfv -e '
global b, t, m, n
probe begin { b = @var("nr_threads@kernel/fork.c") }
probe kernel.function("vfs_read") { if (execname() == "dd" && !n++) { t = @var("nr_threads@kernel/fork.c"); m = @var("max_threads@kernel/fork.c") } }
probe end { printf("vars %d %d %d\n", b > 0, t > 0 && t < m, n >= 5) }' >/dev/null
    fi
    # another release installed here (not an -rt flavour of this one), with its kernel image (its BTF)
    local other
    other=$(ls /lib/modules | grep -v -e '-rt-' -e "^${KVER%%[-+]*}[-+]" | head -n 1) || true
    [[ -n $other && -f /boot/vmlinuz-$other ]] || return 0
    "$TOP/build/bin/stap" -r "$other" --runtime=bpf -p4 -m t_bpfx -e '
global n, r, name
probe kernel.function("vfs_read") { if (execname() == "dd" && $count == 1) { n++; name = kernel_string($file->f_path->dentry->d_name->name) } }
probe kernel.function("vfs_read").return { if (execname() == "dd" && @entry($count) == 1 && $return == 1) r++ }
probe end { printf("%s %d %d\n", name, n, r) }' >/dev/null
}

guest() {
    staprun -c "dd if=/dev/zero of=/dev/null bs=1 count=2000" t_bpfk.bo
    if [ -f t_bpfx.bo ]; then staprun -c "dd if=/dev/zero of=/dev/null bs=1 count=300" t_bpfx.bo; fi
    if [ -f t_bpfv.bo ]; then staprun -c "dd if=/dev/zero of=/dev/null bs=1 count=5" t_bpfv.bo; fi
}

check() {
    [[ $(cat rc) == 0 ]]
    local want="ones=2000 rets=2000 entry=2000 kprobe=function:1 execs=1"
    [[ -f t_bpfx.bo ]] && want+=$'\nzero 300 300'
    [[ -f t_bpfv.bo ]] && want+=$'\nvars 1 1 1'
    [[ $(cat out) == "$want" ]]
    # dd's own summary on stderr, nothing else
    not grep -v -e 'records in' -e 'records out' -e 'bytes.* copied' err
}
