# DWARF probe points against the real kernel debuginfo: names, files and lines, wildcards, suffixes, statements, refusals, errors
# Used by tests/run (issue 7): translator/dwarf/debuginfo.c, index.c and providers/kernelfn.c at -p2/-p3/-l/-L, checked against readelf and addr2line.

timeout_s=300
cost_s=30

# sites P: the probe points -p2 derives from P (one line each, the canonical pp()).
sites() {
    "$STAP" -p2 -r "$KVER" -e "probe $1 {}" | sed -n 's@ /\* <- .*@@p'
}

run() {
    source "$TOP/tests/lib/assert.sh"
    local V=/usr/lib/debug/boot/vmlinux-$KVER
    [[ -n $KVER && -e $V ]] || { echo "no kernel debuginfo $V"; return 77; }
    # a cache of our own: the first lookup builds the index and saves it, the next ones load it
    export SYSTEMTAP_DIR=$PWD/stapdir
    # the index is what is tested here: exact names cold would be found without it (dwarf-exactname.t)
    export STAP_DWARF_FASTPATH=0
    rm -rf stapdir
    readelf -sW "$V" >syms
    local id
    id=$(readelf -n "$V" | sed -n 's/^ *Build ID: //p')

    "$STAP" -v -p2 -r "$KVER" -e 'probe kernel.function("vfs_read") {}' >out 2>err
    grep -q "^DWARF index of $V: .* built and saved to $PWD/stapdir/cache/dwarf/$id.idx in" err
    [[ -s stapdir/cache/dwarf/$id.idx ]]
    "$STAP" -v -p2 -r "$KVER" -e 'probe kernel.function("vfs_read") {}' >out 2>err
    grep -q "^DWARF index of $V: .* loaded from $PWD/stapdir/cache/dwarf/$id.idx in" err
    "$STAP" -v --disable-cache -p2 -r "$KVER" -e 'probe kernel.function("vfs_read") {}' >out 2>err
    grep -q "^DWARF index of $V: .* built in memory in" err

    # vfs_read: its file and declaration line; its first line-table row (addr2line) is the next line
    local addr decl first
    addr=$(awk '$8 == "vfs_read" && $4 == "FUNC" { print $2 }' syms)
    first=$(addr2line -e "$V" "0x$addr")
    [[ $first == */fs/read_write.c:* ]]
    [[ $(sites 'kernel.function("vfs_read")') =~ ^kernel\.function\(\"vfs_read@fs/read_write\.c:([0-9]+)\"\)$ ]]
    decl=${BASH_REMATCH[1]}
    echo "vfs_read declared at line $decl, code from ${first##*:}"
    (( decl + 1 == ${first##*:} ))
    [[ $("$STAP" -r "$KVER" -l 'kernel.function("vfs_read")') == "kernel.function(\"vfs_read@fs/read_write.c:$decl\")" ]]
    [[ $(sites 'kernel.function("vfs_read").return') == "kernel.function(\"vfs_read@fs/read_write.c:$decl\").return" ]]
    [[ $(sites 'kernel.function("vfs_read").call') == "kernel.function(\"vfs_read@fs/read_write.c:$decl\").call" ]]
    [[ $(sites 'kernel.function("vfs_read@fs/read_write.c")') == "kernel.function(\"vfs_read@fs/read_write.c:$decl\")" ]]
    [[ $(sites 'kernel.function("vfs_read@*/read_write.c")') == "kernel.function(\"vfs_read@fs/read_write.c:$decl\")" ]]
    [[ $(sites "kernel.function(\"*@fs/read_write.c:$((decl + 2))\")") == *"kernel.function(\"vfs_read@fs/read_write.c:$decl\")"* ]]
    # placed at the function's own symbol, offset 0 (kprobes steps over __fentry__ itself), with its link-time
    # address for runtime/probes/fentry.h, and register_kprobe's, from which the runtime measures KASLR's offset
    "$STAP" -p3 -r "$KVER" -e 'probe kernel.function("vfs_read") {}' >c
    grep -q "\.symbol = \"vfs_read\", \.offset = 0x0UL, \.fentry = 0x$(awk '$8 == "vfs_read" && $4 == "FUNC" { print $2 }' syms | sed 's/^0*//')UL, \.entry = " c
    grep -q "^#define STP_FENTRY_REF_ADDR 0x$(awk '$8 == "register_kprobe" && $4 == "FUNC" { print $2 }' syms | sed 's/^0*//')UL$" c
    # no address for a return, a statement, an inline instance or a module's function
    "$STAP" -p3 -r "$KVER" -e 'probe kernel.function("vfs_read").return, kernel.function("vfs_fsync").inline,
        kernel.statement("vfs_read@fs/read_write.c:*") {}' >c
    not grep -q '\.fentry' c
    grep -q "^MODULE_INFO(stap_kernel_build_id, \"$id\");" c

    # vfs_*.call: one site per out-of-line vfs_* function, the same set as the symbol table's
    # (.cold parts are not entries)
    "$STAP" -p3 -r "$KVER" -e 'probe kernel.function("vfs_*").call {}' >c
    grep -o '\.symbol = "[^"]*", \.offset = 0x0UL' c | sed 's/.symbol = "//; s/".*//' | sort >calls
    awk '$4 == "FUNC" && $7 == 1 && $8 ~ /^vfs_/ && $8 !~ /\.cold$/ { print $8 }' syms | sort >symbols
    diff calls symbols
    (( $(wc -l <calls) > 50 ))
    # without a suffix: the calls and the inline instances; -l lists each function once
    local all inl
    all=$(sites 'kernel.function("vfs_*")' | wc -l)
    inl=$(sites 'kernel.function("vfs_*").inline' | wc -l)
    echo "vfs_*: $(wc -l <calls) calls, $inl inline instances, $all in all"
    (( inl > 0 && all == $(wc -l <calls) + inl ))
    (( $(sites 'kernel.function("vfs_*").inline' | grep -vc '^kernel\.function("vfs_[a-z_0-9]*@[^"]*:[0-9]*")\.inline$') == 0 ))
    "$STAP" -r "$KVER" -l 'kernel.function("vfs_*")' >list
    [[ $(sort -u list | wc -l) == $(wc -l <list) ]]
    grep -qx "kernel.function(\"vfs_read@fs/read_write.c:$decl\")" list
    # an always-inlined function: .inline sites only, .call and .return are errors
    (( $(sites 'kernel.function("vfs_fsync").inline' | wc -l) >= 1 ))
    expect_error "<input>:1:23: semantic error" "'vfs_lstat' has no out-of-line code (it is always inlined: use .inline)" \
        -p2 -r "$KVER" -e 'probe kernel.function("vfs_lstat").call {}'
    expect_error "<input>:1:43: semantic error" ".inline probes have no .return" \
        -p2 -r "$KVER" -e 'probe kernel.function("vfs_fsync").inline.return {}'
    # .exported: EXPORT_SYMBOL'ed functions only (vfs_llseek is, vfs_read is not)
    sites 'kernel.function("vfs_*").exported' >exported
    grep -q '^kernel.function("vfs_llseek@fs/read_write.c:[0-9]*").exported$' exported
    not grep -q 'vfs_read@' exported
    # (each name once: a function may also have a partial out-of-line copy, foo.part.0)
    diff <(sed 's/@.*//; s/.*"//' exported | sort -u) <(grep -o ' __ksymtab_vfs_.*' syms | sed 's/ __ksymtab_//' | sort)

    # statements: the first line with code is at the entry; a line without code is an error naming
    # the nearest lines that have some; ranges and :* give one site per line with code
    [[ $(sites "kernel.statement(\"vfs_read@fs/read_write.c:${first##*:}\")") == \
        "kernel.statement(\"vfs_read@fs/read_write.c:${first##*:}\")" ]]
    "$STAP" -p3 -r "$KVER" -e "probe kernel.statement(\"vfs_read@fs/read_write.c:${first##*:}\") {}" >c
    grep -q '\.symbol = "vfs_read", \.offset = 0x0UL' c
    expect_error "<input>:1:24: semantic error" "no code for line $decl of fs/read_write.c in vfs_read (nearest lines with code: " \
        -p2 -r "$KVER" -e "probe kernel.statement(\"vfs_read@fs/read_write.c:$decl\") {}"
    [[ $(sites "kernel.statement(\"vfs_read@fs/read_write.c+1\")") == "kernel.statement(\"vfs_read@fs/read_write.c:$((decl + 1))\")" ]]
    local every some
    every=$(sites 'kernel.statement("vfs_read@fs/read_write.c:*")' | wc -l)
    some=$(sites "kernel.statement(\"vfs_read@fs/read_write.c:$decl-$((decl + 20))\")" | wc -l)
    echo "vfs_read: $every lines with code, $some in the first 20"
    (( some > 2 && every > some ))
    # each statement site is an address addr2line maps to its line (-i: or to the line of a call
    # inlined there)
    "$STAP" -p3 -r "$KVER" -e "probe kernel.statement(\"vfs_read@fs/read_write.c:$decl-$((decl + 20))\") {}" >c
    # (one addr2line for all of them: each run reads the kernel's DWARF, 1.5 s; -a starts each address's lines)
    local off line
    local -a addrs=() lines=()
    while read -r off line; do
        addrs+=("$(printf '0x%016x' $((0x$addr + off)))")
        lines+=("$line")
    done < <(paste <(grep -o '\.symbol = "vfs_read", \.offset = 0x[0-9a-f]*' c | sed 's/.*= //') \
                   <(grep -o '\.pp = "kernel.statement(\\"vfs_read@fs/read_write.c:[0-9]*' c | sed 's/.*://'))
    (( ${#addrs[@]} > 2 ))
    addr2line -a -i -e "$V" "${addrs[@]}" >a2l
    local k
    for k in "${!addrs[@]}"; do
        awk -v a="${addrs[k]}" -v l="fs/read_write.c:${lines[k]}" '
            /^0x[0-9a-f]+$/ { cur = $0; next }
            cur == a && substr($0, length($0) - length(l) + 1) == l { found = 1 }
            END { exit !found }' a2l || { echo "${addrs[k]}: not line ${lines[k]}"; cat a2l; return 1; }
    done

    # what kprobes refuses is left out, with a -v note; alone, it is an error
    "$STAP" -v -p2 -r "$KVER" -e 'probe kernel.function("kprobe_int3_handler")?, kernel.function("vfs_read") {}' >out 2>err
    grep -q '^Skipping kernel.function("kprobe_int3_handler@arch/x86/kernel/kprobes/core.c:[0-9]*") at 0x[0-9a-f]*: blacklisted for kprobes (NOKPROBE_SYMBOL)$' err
    [[ $(grep -c '^kernel.function' out) == 1 ]]
    expect_error "<input>:1:23: semantic error" 'kernel.function("exc_int3"): no location kprobes can probe: kernel.function("exc_int3@arch/x86/kernel/traps.c:' \
        -p2 -r "$KVER" -e 'probe kernel.function("exc_int3") {}'
    grep -q 'in .noinstr.text (noinstr code)' stderr
    expect_error "<input>:1:23: semantic error" 'kernel.function("start_kernel"): no location kprobes can probe: ' \
        -p2 -r "$KVER" -e 'probe kernel.function("start_kernel") {}'
    grep -q 'in __init code (.init.text), freed after boot' stderr

    # errors: where they are and what they say
    expect_error "<input>:1:23: semantic error" "no function 'no_such_function_xyz' in the debuginfo of the kernel ($V)" \
        -p2 -r "$KVER" -e 'probe kernel.function("no_such_function_xyz") {}'
    expect_error "<input>:1:7: semantic error" "probe point 'kernel.function(\"no_such_*_xyz\")' matches nothing" \
        -p2 -r "$KVER" -e 'probe kernel.function("no_such_*_xyz") {}'
    expect_ok -p2 -r "$KVER" -e 'probe kernel.function("no_such_function_xyz")?, kernel.function("vfs_read") {}'
    expect_error "<input>:1:23: semantic error" "bad line number 'x' in 'vfs_read@fs/read_write.c:x'" \
        -p2 -r "$KVER" -e 'probe kernel.function("vfs_read@fs/read_write.c:x") {}'
    expect_error "<input>:1:23: semantic error" "empty line range 9-3 in 'vfs_read@fs/read_write.c:9-3'" \
        -p2 -r "$KVER" -e 'probe kernel.function("vfs_read@fs/read_write.c:9-3") {}'
    expect_error "<input>:1:23: semantic error" "empty file name after '@' in 'vfs_read@'" \
        -p2 -r "$KVER" -e 'probe kernel.function("vfs_read@") {}'
    expect_error "<input>:1:23: semantic error" "empty function name in probe point pattern" \
        -p2 -r "$KVER" -e 'probe kernel.function("") {}'
    expect_error "<input>:1:23: semantic error" "function 'vfs_read' is not in a file matching 'fs/open.c'" \
        -p2 -r "$KVER" -e 'probe kernel.function("vfs_read@fs/open.c") {}'
    expect_error "<input>:1:35: semantic error" "unknown probe point component 'foo' after kernel.function(...)" \
        -p2 -r "$KVER" -e 'probe kernel.function("vfs_read").foo {}'
    expect_error "<input>:1:24: semantic error" 'kernel.statement("vfs_read") needs a line: "FUNCTION@FILE:LINE"' \
        -p2 -r "$KVER" -e 'probe kernel.statement("vfs_read") {}'
    expect_error "<input>:1:14: semantic error" "kernel.statement(ADDRESS) is written kernel.statement(ADDRESS).absolute (guru mode)" \
        -p2 -r "$KVER" -e 'probe kernel.statement(0xffffffff81000000) {}'
    expect_error "<input>:1:44: semantic error" "kernel.statement(ADDRESS).absolute probes any address: it needs guru mode (-g)" \
        -p2 -r "$KVER" -e 'probe kernel.statement(0xffffffff81000000).absolute {}'
    [[ $("$STAP" -g -p2 -r "$KVER" -e 'probe kernel.statement(0xffffffff81000000).absolute {}' | sed -n 's@ /\* <- .*@@p') == \
        'kernel.statement(0xffffffff81000000).absolute' ]]
    expect_error "<input>:1:14: semantic error" 'module("ext*"): module name patterns are not supported' \
        -p2 -r "$KVER" -e 'probe module("ext*").function("x") {}'
    expect_error "<input>:1:14: semantic error" "no module no_such_mod for kernel $KVER (looked for no_such_mod.ko in /usr/lib/debug/lib/modules/$KVER and /lib/modules/$KVER" \
        -p2 -r "$KVER" -e 'probe module("no_such_mod").function("x") {}'

    # no debuginfo for the kernel asked for: the package to install and where we looked, at each point
    expect_error "<input>:1:7: semantic error" "no kernel debuginfo for 9.9.9-fake: install linux-image-9.9.9-fake-dbg (looked in /usr/lib/debug/boot/vmlinux-9.9.9-fake, /usr/lib/debug/lib/modules/9.9.9-fake/vmlinux, /boot/vmlinux-9.9.9-fake" \
        -p2 -r 9.9.9-fake -e 'probe kernel.function("vfs_read") {} probe kernel.function("vfs_write") {}'
    [[ $(grep -c 'no kernel debuginfo for 9.9.9-fake' stderr) == 2 ]]

    # -L: each variable visible at the site (types come from dwarf/dwvars.c)
    "$STAP" -r "$KVER" -L 'kernel.function("vfs_read")' >list
    [[ $(cat list) == "kernel.function(\"vfs_read@fs/read_write.c:$decl\") \$file:"* ]]
    [[ $(grep -o ' \$[a-z_0-9]*:' list | tr -d '\n') == ' $file: $buf: $count: $pos: $ret:' ]]
    "$STAP" -r "$KVER" -L 'kernel.function("vfs_read").return' >list
    [[ $(grep -o ' \$[a-z_0-9]*:' list | tr -d '\n') == ' $return: $file: $buf: $count: $pos:' ]]

    # staprun refuses a module whose probes were placed with another kernel build's debuginfo (here
    # the module claims to be for this host, whose build id differs from the debuginfo's)
    if (( EUID == 0 )) && [[ -r /sys/kernel/notes ]]; then
        source "$TOP/tests/lib/module-edit.sh"
        "$STAP" -p4 -m dw_bid -r "$KVER" -e 'probe kernel.function("vfs_read") { println(pp()) }' >/dev/null
        mkdir -p host
        set_vermagic dw_bid.ko host/dw_bid.ko "$(uname -r)"
        not "$(dirname "$STAP")/staprun" host/dw_bid.ko >out 2>err
        cat err
        grep -q "^staprun: cannot load module host/dw_bid.ko: its probes were placed with the debuginfo of a kernel with build id $id; the running kernel's build id is [0-9a-f]*: rebuild" err
    fi
    # every installed kernel with its DWARF names files from its source tree's top, Debian's rt flavours
    # (built from debian/build/source_rt) as the others: the cold lookup and the index agree
    local k sd
    for k in $("$TOP/scripts/guest-kver.sh" --all); do
        [[ -e /usr/lib/debug/boot/vmlinux-$k ]] || continue
        # (this kernel's index is the one built at the top: not built again)
        sd=$PWD/sd-$k; [[ $k == "$KVER" ]] && sd=$PWD/stapdir
        SYSTEMTAP_DIR=$sd "$STAP" -r "$k" -l 'kernel.function("ksys_read")' | grep -qE '^kernel\.function\("ksys_read@fs/read_write\.c:[0-9]+"\)$'
        SYSTEMTAP_DIR=$sd STAP_DWARF_FASTPATH=0 "$STAP" -r "$k" -l 'kernel.function("vfs_rea*")' | grep -qE '^kernel\.function\("vfs_read@fs/read_write\.c:[0-9]+"\)$'
        echo "$k: fs/read_write.c"
    done
}
