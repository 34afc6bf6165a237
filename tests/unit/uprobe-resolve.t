# process("PATH"|PID) probe points on a program built here (.function, .statement, .plt, symbol table): PATH lookup and symlinks, sites and canonical names, the probe after the prologue (-O0) or at the entry (-O2), .return entry-value placement, the build id, errors
# Used by tests/run (issue 17): translator/providers/uprobe.c (pass 2 and the C table of pass 3), on the host and under ASan.

timeout_s=300

# offset_of BINARY SYMBOL: the file offset of SYMBOL's address (through its executable PT_LOAD)
offset_of() {
    local addr type off va pa fs rest
    addr=$((16#$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')))
    while read -r type off va pa fs rest; do
        [[ $type == LOAD && $rest == *E* ]] || continue
        if (( addr >= va && addr < va + fs )); then
            echo $((addr - va + off))
            return
        fi
    done < <(readelf -lW "$1")
    return 1
}

# offset_of_plt BINARY SYMBOL: the file offset of SYMBOL's PLT stub (objdump's NAME@plt)
offset_of_plt() {
    local addr
    addr=$(objdump -d "$1" | sed -n "s/^\([0-9a-f]*\) <$2@plt>:$/\1/p")
    echo $((16#$addr))     # .plt lies in the first executable segment, at its own offset
}

# p2_fails SCRIPT PATTERN: pass 2 of SCRIPT fails, with PATTERN (grep) on its stderr (left in ./err)
p2_fails() {
    not "$STAP" -r "$KVER" -p2 -e "$1" 2>err
    grep -q "$2" err
}

run() {
    source "$TOP/tests/lib/assert.sh"
    export SYSTEMTAP_DIR=$PWD/stapdir
    gcc -g -O0 -o uprog "$TOP/tests/uprobe/uprog.c"
    gcc -g -O2 -o uprog-O2 "$TOP/tests/uprobe/uprog.c"
    ln -sf uprog uplink
    local src=$TOP/tests/uprobe/uprog.c out c add
    # every function with code, canonical: the real path, FUNCTION@FILE:LINE
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./uplink").function("*") {}' | sed -n 's@ /\* <- .*@@p')
    [[ $(wc -l <<<"$out") == 6 ]]
    grep -qx "process(\"$PWD/uprog\").function(\"add@$src:14\")" <<<"$out"
    grep -qx "process(\"$PWD/uprog\").function(\"main@$src:48\")" <<<"$out"
    # a bare name through $PATH; FUNCTION@FILE and globs
    out=$(PATH=$PWD:$PATH "$STAP" -r "$KVER" -p2 -e 'probe process("uprog").function("*@uprog.c").return {}' | sed -n 's@ /\* <- .*@@p')
    [[ $(wc -l <<<"$out") == 6 ]]
    grep -qx "process(\"$PWD/uprog\").function(\"greet@$src:27\").return" <<<"$out"
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").function("[as]*").call {}' | sed -n 's@ /\* <- .*@@p')
    [[ $(wc -l <<<"$out") == 2 ]]
    # -O0: after the prologue (arguments stored), a few bytes past the entry; -O2: at the entry
    c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./uprog").function("add") { println($a) }')
    add=$(offset_of uprog add)
    off=$(sed -n 's/.*\.offset = 0x\([0-9a-f]*\)ULL.*/\1/p' <<<"$c")
    (( 16#$off > add && 16#$off < add + 32 ))
    grep -q 'stp_dw_uread(c, (dwl0), 4, 1)' <<<"$c"
    c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./uprog-O2").function("add") { println($a) }')
    off=$(sed -n 's/.*\.offset = 0x\([0-9a-f]*\)ULL.*/\1/p' <<<"$c")
    (( 16#$off == $(offset_of uprog-O2 add) ))
    grep -q 'c->regs->di' <<<"$c"
    # .return with entry values: the uretprobe at the entry, the values read after the prologue
    # with the CFA (rbp + 16) as the key; at the entry of optimized code (rsp + 8)
    c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./uprog").function("add").return { println($a + $return) }')
    grep -q "\.offset = 0x$(printf %x "$add")ULL, \.is_return = 1, \.entry = stp_dwarf_entry_0, \.entry_size = 8, \.save_offset = 0x[0-9a-f]*ULL, \.cfa_reg = offsetof(struct pt_regs, bp), \.cfa_offset = 16 }" <<<"$c"
    c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./uprog-O2").function("add").return { println($a + $return) }')
    add=$(printf %x "$(offset_of uprog-O2 add)")
    grep -q "\.offset = 0x${add}ULL, \.is_return = 1, \.entry = stp_dwarf_entry_0, \.entry_size = 8, \.save_offset = 0x${add}ULL, \.cfa_reg = offsetof(struct pt_regs, sp), \.cfa_offset = 8 }" <<<"$c"
    # the build id, to be read back at start
    grep -q "\.build_id_len = 20, \.build_id = \"$(readelf -n uprog-O2 | awk '/Build ID/ { print $3 }' | sed 's/../\\\\x&/g')\"" <<<"$c"
    # errors
    p2_fails 'probe process("./uprog").function("add").inline {}' "'add' is never inlined in $PWD/uprog: drop .inline"
    # FUNCTION@FILE:LINE: the function declared at the line, or with code there
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").function("*@uprog.c:16") {}' | sed -n 's@ /\* <- .*@@p')
    [[ $out == "process(\"$PWD/uprog\").function(\"add@$src:14\")" ]]
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").function("add@uprog.c:14") {}' | sed -n 's@ /\* <- .*@@p')
    [[ $out == "process(\"$PWD/uprog\").function(\"add@$src:14\")" ]]
    p2_fails 'probe process("./uprog").function("add@uprog.c:40") {}' "function 'add' of $PWD/uprog is not in a file matching 'uprog.c' at that line"
    # .statement: a line's address, its canonical name; a line without code; .absolute
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").statement("add@uprog.c:16") {}' | sed -n 's@ /\* <- .*@@p')
    [[ $out == "process(\"$PWD/uprog\").statement(\"add@$src:16\")" ]]
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").statement("add@uprog.c:*") {}' | sed -n 's|.*statement("add@[^:]*:\([0-9]*\)").*|\1|p' | tr '\n' ' ')
    [[ $out == "15 16 17 " ]]
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").statement("add@uprog.c:16-30") {}' | grep -c 'statement("add@')
    [[ $out == 2 ]]
    p2_fails 'probe process("./uprog").statement("add@uprog.c:12") {}' 'no code for line 12 of .*uprog.c in add (nearest lines with code: 15)'
    p2_fails 'probe process("./uprog").statement("add") {}' 'needs a line: "FUNCTION@FILE:LINE"'
    c=$("$STAP" -r "$KVER" -p3 -e "probe process(\"./uprog\").statement(0x$(nm uprog | awk '$3 == "add" { print $1 }')).absolute {}")
    grep -q "\.offset = 0x$(printf %x "$(offset_of uprog add)")ULL" <<<"$c"
    p2_fails 'probe process("./uprog").statement(0x10).absolute {}' "0x10 is in no executable segment of $PWD/uprog"
    p2_fails 'probe process("./uprog").statement(0x10) {}' 'is written process(...).statement(ADDRESS).absolute'
    # process(PID): the process's executable, .pid in the table; a pid that is gone
    ./uprog 1 go-never >/dev/null &
    pid=$!
    for i in $(seq 100); do [[ $(readlink /proc/$pid/exe) == "$PWD/uprog" ]] && break; sleep 0.05; done
    c=$("$STAP" -r "$KVER" -p3 -e "probe process($pid).function(\"add\") { println(\$a) }")
    grep -q "\.pid = $pid }" <<<"$c"
    kill $pid
    wait $pid || true
    p2_fails "probe process($pid).function(\"add\") {}" "process($pid): no such process"
    # .plt: the stubs, $$name; no such entry
    out=$("$STAP" -r "$KVER" -L 'process("./uprog").plt("strl*")')
    [[ $out == "process(\"$PWD/uprog\").plt(\"strlen\") \$\$name:string" ]]
    c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./uprog").plt("strlen") { println($$name) }')
    grep -q "\.offset = 0x$(printf %x "$(offset_of_plt uprog strlen)")ULL" <<<"$c"
    # with IBT the stubs are in .plt.sec: each one where objdump puts NAME@plt
    gcc -g -O0 -fcf-protection -Wl,-z,ibtplt -o uprog-ibt "$TOP/tests/uprobe/uprog.c"
    if readelf -SW uprog-ibt | grep -q '\.plt\.sec'; then
        c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./uprog-ibt").plt("strlen"), process("./uprog-ibt").plt("atoi") {}')
        grep -q "\.offset = 0x$(printf %x "$(offset_of_plt uprog-ibt strlen)")ULL" <<<"$c"
        grep -q "\.offset = 0x$(printf %x "$(offset_of_plt uprog-ibt atoi)")ULL" <<<"$c"
    fi
    p2_fails 'probe process("./uprog").plt("nosuch") {}' "no PLT entry 'nosuch' in $PWD/uprog"
    p2_fails 'probe process("./uprog").plt("strlen") { println($s) }' "'\$s' is not available: no DWARF describes probe point 'process(\"$PWD/uprog\").plt(\"strlen\")'"
    p2_fails 'probe process("./uprog").function("add@other.c") {}' "function 'add' of $PWD/uprog is not in a file matching 'other.c'"
    # without DWARF: the symbol table, at the symbol's address; no target variables, no lines
    gcc -O0 -o nodebug "$TOP/tests/uprobe/uprog.c"
    c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./nodebug").function("add") {}')
    grep -q "\.offset = 0x$(printf %x "$(offset_of nodebug add)")ULL" <<<"$c"
    p2_fails 'probe process("./nodebug").function("add") { println($a) }' "'\$a' is not available: no DWARF describes probe point 'process(\"$PWD/nodebug\").function(\"add\")'"
    p2_fails 'probe process("./nodebug").function("add") { println($$parms) }' "'\$\$parms' is not available: no DWARF"
    p2_fails 'probe process("./nodebug").function("nosuch") {}' "no function 'nosuch' in the symbol table (.symtab) of $PWD/nodebug, which has no DWARF debuginfo"
    p2_fails 'probe process("./nodebug").statement("add@uprog.c:16") {}' "$PWD/nodebug has no DWARF debuginfo (build it with -g): .statement(\"PATTERN\") needs it"
    p2_fails 'probe process("./nodebug").function("add").inline {}' 'needs it; without it only .function("NAME")'
    p2_fails 'probe process("./uprog").function("*").return { println($nosuch) }' "no variable 'nosuch' is visible"
}
