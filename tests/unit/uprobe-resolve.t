# process("PATH").function probe points on a program built here: PATH lookup and symlinks, sites and canonical names, the probe after the prologue (-O0) or at the entry (-O2), .return entry-value placement, the build id, errors
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
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").function("add").inline {}' 2>err
    grep -q 'process("PATH").function(...).inline is not supported yet' err
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").function("add@uprog.c:15") {}' 2>err
    grep -q 'FUNCTION@FILE is supported, lines are not yet' err
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").function("add@other.c") {}' 2>err
    grep -q "function 'add' of $PWD/uprog is not in a file matching 'other.c'" err
    gcc -O0 -o nodebug "$TOP/tests/uprobe/uprog.c"
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./nodebug").function("add") {}' 2>err
    grep -q "no DWARF debuginfo in $PWD/nodebug (build it with -g)" err
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./uprog").function("*").return { println($nosuch) }' 2>err
    grep -q "no variable 'nosuch' is visible" err
}
