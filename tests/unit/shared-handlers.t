# shared handlers: the sites of a wildcard probe (and any probes whose generated code is the same) run one handler, kprobes and kretprobes one trampoline; sites with different code keep their own
# Used by tests/run (issue 19): translator/codegen/bodies.c gen_probe_handlers, providers/kernelfn.c emit_dwarf, runtime/probes/dwarf.c STP_DWARF_*_SHARED.


# gen SCRIPT: its module's C in ./c
gen() {
    "$STAP" -p3 -r "$KVER" -e "$1" >c 2>err || { echo "stap -p3 failed on: $1"; cat err; return 1; }
}

# handlers: how many distinct handler functions the kernel.function sites' descriptors name (an end
# probe printing the globals the script never reads has its own)
handlers() { grep '^	{ .handler = probe_[0-9]*, .*\.pp = "kernel\.function(' c | sed 's/,.*//' | sort -u | wc -l; }

# sites: how many probe descriptors name a kernel.function site
sites() { grep -c '^	{ .handler = probe_[0-9]*, .*\.pp = "kernel\.function(' c || true; }

run() {
    local n
    need_kernel_dwarf
    # every vfs_* site runs probe_0 through one shared trampoline; its pp() is the site's own
    gen 'global n; probe kernel.function("vfs_*") { n++ }'
    n=$(sites)
    (( n > 50 )) || { echo "only $n vfs_* sites"; return 1; }
    [[ $(handlers) == 1 ]] || { echo "$(handlers) handlers for $n sites"; return 1; }
    [[ $(grep -c '^	{ .handler = probe_0, .locks = locks_probe_0, .nlocks = NLOCKS_probe_0, .pp = "kernel\.function(\\"vfs_' c) == "$n" ]]
    [[ $(grep -c '^STP_DWARF_KPROBE_SHARED(0)$' c) == 1 ]]
    not grep -q '^STP_DWARF_KPROBE(' c
    [[ $(grep -c '\.entry = stp_dwarf_hit_shared_0 ' c) == "$n" ]]
    grep -q '\.pp = "kernel\.function(\\"vfs_read@fs/read_write\.c:[0-9]*\\")"' c
    [[ $(grep -c '^struct frame_probe_' c) == 2 ]]   # and the end probe's

    # .return sites share a kretprobe trampoline
    gen 'global n; probe kernel.function("vfs_read*").return { n[pp()]++ }'
    (( $(sites) > 1 ))
    [[ $(handlers) == 1 ]]
    [[ $(grep -c '^STP_DWARF_KRETPROBE_SHARED(0)$' c) == 1 ]]
    [[ $(grep -c '\.ret = stp_dwarf_ret_shared_0 ' c) == "$(sites)" ]]

    # a lone site keeps its own trampoline, as before
    gen 'global n; probe kernel.function("vfs_read") { n++ }'
    grep -q '^STP_DWARF_KPROBE(0)$' c
    not grep -q 'SHARED' c

    # bodies whose code differs (a parameter in different places, a different @entry) keep their own
    gen 'probe kernel.function("vfs_read").call, kernel.function("do_sys_openat2").call { println($$parms) }'
    [[ $(handlers) == 2 ]]
    grep -q '^STP_DWARF_KPROBE(0)$' c
    grep -q '^STP_DWARF_KPROBE(1)$' c
    # .return with @entry values: a trampoline per site (the entry half is the site's own)
    gen 'probe kernel.function("vfs_read").return, kernel.function("vfs_write").return { println(@entry($count)) }'
    not grep -q 'SHARED' c

    # the points of one script probe share; two script probes of the same text keep their own (the
    # locations their errors name differ)
    gen 'global n, m; probe kernel.function("vfs_read"), kernel.function("vfs_write") { n++ } probe kernel.function("vfs_open").call { n++ }'
    [[ $(handlers) == 2 ]]
    grep -q '^STP_DWARF_KPROBE_SHARED(0)$' c
    grep -q '^STP_DWARF_KPROBE(2)$' c
    grep -q '"identifier .n. at <input>:1:[0-9]*"' c

    # the kprobe family: syscall.* (a kprobe per system call) shares handlers and trampolines, entry
    # and return alike
    gen 'global hits; probe syscall.* { hits[pp()]++ } probe kprobe.function("vfs_read").return, kprobe.function("vfs_write").return { hits[pp()]++ }'
    [[ $(grep -c '^STP_KPROBE_TRAMPOLINE_SHARED([0-9]*)$' c) -ge 1 ]]
    [[ $(grep -c '^STP_KRETPROBE_TRAMPOLINE_SHARED([0-9]*)$' c) == 1 ]]
    (( $(grep -c '\.entry = stp_kprobe_hit_shared_' c) > 300 ))
    [[ $(grep -c '\.ret = stp_kretprobe_hit_shared_' c) == 2 ]]

    # the shared module builds
    "$STAP" -p4 -r "$KVER" -m t_shared -w -e 'global hits; probe kernel.function("vfs_*") { hits[pp()]++ } probe kernel.function("vfs_r*").return { hits[pp()]++ } probe syscall.* { hits[pp()]++ } probe kprobe.function("vfs_read").return, kprobe.function("vfs_write").return { hits[pp()]++ }' >/dev/null
    [[ -s t_shared.ko ]]
}
