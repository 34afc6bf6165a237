# user symbol tables embedded for ubacktrace & co: which files (process probes, -d PATH, --ldd with DT_NEEDED and the dynamic linker), their function and .eh_frame sizes, none without a ucontext function, warnings, -d PATH beside kernel.trace
# Used by tests/run (issue 17, user backtraces): translator/kmodule/usyms.c, on the host and under ASan.

timeout_s=300

run() {
    export SYSTEMTAP_DIR=$PWD/stapdir
    gcc -g -O2 -o ustack "$TOP/tests/uprobe/ustack.c"
    local libc=/usr/lib/x86_64-linux-gnu/libc.so.6 ld=/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 c err eh
    local bt='probe process("./ustack").function("inner") { print_ubacktrace() }'
    # the probed file only
    c=$("$STAP" -r "$KVER" -p3 -e "$bt")
    grep -q "^	{ .path = \"$PWD/ustack\", .segs" <<<"$c"
    [[ $(grep -c '^	{ .path = .*, .segs = ' <<<"$c") == 1 ]]
    grep -q '^#define STP_UMODS_N 1U$' <<<"$c"
    grep -q '^	{ "umods", stp_umods_start, stp_umods_stop },$' <<<"$c"
    # its functions (main, outer, middle, inner, leaf, recurse and the crt ones) and its whole .eh_frame
    eh=$((16#$(readelf -SW ustack | grep ' \.eh_frame ' | sed 's/.*\] *//' | awk '{ print $5 }')))
    "$STAP" -r "$KVER" -p3 -v -e "$bt" 2>err.out >/dev/null
    grep -qE "^user symbols: $PWD/ustack: [0-9]+ functions, $eh bytes of .eh_frame\$" err.out
    (( $(sed -n "s|^user symbols: $PWD/ustack: \([0-9]*\) functions.*|\1|p" err.out) >= 6 ))
    # --ldd: libc (DT_NEEDED) and the dynamic linker (PT_INTERP), resolved
    c=$("$STAP" -r "$KVER" -p3 --ldd -e "$bt")
    grep -q "^	{ .path = \"$libc\", .segs" <<<"$c"
    grep -q "^	{ .path = \"$ld\", .segs" <<<"$c"
    [[ $(grep -c '^	{ .path = .*, .segs = ' <<<"$c") == 3 ]]
    # -d PATH without a process probe; a file given twice counts once
    c=$("$STAP" -r "$KVER" -p3 -d "$libc" -d /lib/x86_64-linux-gnu/libc.so.6 -e 'probe begin { print_ubacktrace() }')
    [[ $(grep -c '^	{ .path = .*, .segs = ' <<<"$c") == 1 ]]
    grep -q "^	{ .path = \"$libc\", .segs" <<<"$c"
    # no ucontext function: no tables at all
    c=$("$STAP" -r "$KVER" -p3 -d "$libc" -e 'probe process("./ustack").function("inner") { println(pid()) }')
    not grep -q 'stp_umods' <<<"$c"
    # a -d file that cannot be read: a warning, the run goes on
    "$STAP" -r "$KVER" -p3 -d "$PWD/no-such-file" -e 'probe begin { print_ubacktrace() }' >/dev/null 2>err.out
    grep -q "warning: cannot find $PWD/no-such-file: no user symbols for it" err.out
    "$STAP" -r "$KVER" -p3 -d /etc/passwd -e 'probe begin { print_ubacktrace() }' >/dev/null 2>err.out
    grep -q "warning: cannot read /etc/passwd as an ELF executable or shared library" err.out
    # -d PATH is not a kernel module to kernel.trace
    "$STAP" -r "$KVER" -p2 -d "$PWD/ustack" -e 'probe kernel.trace("sched:sched_switch") {}' >/dev/null
}
