# Target variables of stap_testmod (tests/kmod/testmod) in pass 2 and 3: stack arguments, a struct in a register, a module global in a location, entry values, type spellings
# Used by tests/run (issue 7): loc.c (DW_OP_fbreg via the CFA, registers, DW_OP_addr of a .ko), types.c (-L spellings).

timeout_s=300

# col SCRIPT NEEDLE: the column where NEEDLE first starts in SCRIPT
col() { local before=${1%%"$2"*}; echo $(( ${#before} + 1 )); }

run() {
    source "$TOP/tests/lib/assert.sh"
    source "$TOP/tests/lib/testmod.sh"
    if [[ ! -d /lib/modules/$KVER/build ]]; then
        echo "no kernel build tree for $KVER"
        exit 77
    fi
    local ko line M
    ko=$(testmod_build "$TOP/build/tests/testmod/$KVER")
    line=$(grep -n 'STM-LINE: locals' "$(dirname "$ko")/stap_testmod.c" | cut -d: -f1)
    M="module(\"$ko\")"

    # a7 and a8 are above the return address: DW_OP_fbreg 0 / 8 from the CFA, rsp + 8 at entry
    expect_ok -p3 -r "$KVER" -e "probe $M.function(\"stm_stack_args\") { println(\$a7, \$a8) }"
    grep -qF 'dw1_f_cfa = c->regs->sp + (unsigned long)8L;' stdout
    grep -qF 'dwl0 = dw1_fb + (unsigned long)0L;' stdout
    grep -qF 'dwl3 = dw4_fb + (unsigned long)8L;' stdout
    # a struct passed by value in RDI: y is bytes 4-5 of the register
    expect_ok -p3 -r "$KVER" -e "probe $M.function(\"stm_struct_byval\") { println(\$in->y) }"
    grep -qF 'stp_dw_extract((u64)(c->regs->di), 4, 2, 1)' stdout
    # DW_OP_addr of a module: its symbol, found in the loaded module at run time
    expect_ok -p3 -r "$KVER" -e "probe $M.statement(\"stm_locals@stap_testmod.c:$line\") { println(kernel_string(\$msg)) }"
    grep -qF 'stp_dw_module_symbol(c, "stap_testmod", "stm_greeting", cache)' stdout
    local s="probe $M.statement(\"stm_locals@stap_testmod.c:$line\") { println(\$n) }"
    expect_error "<input>:1:$(col "$s" '$n'): semantic error" \
        "target variable '\$n' is not accessible at this address (pc 0x" -p2 -r "$KVER" -e "$s"
    grep -q 'DW_OP_entry_value' stderr
    # @var of a module global, in any probe
    expect_ok -p3 -r "$KVER" -e "probe begin { println(@var(\"stm_int_target@stap_testmod.c\", \"$ko\")) }"
    grep -qF 'stp_dw_module_symbol(c, "stap_testmod", "stm_int_target", cache)' stdout
    # bit fields: stm_bits.s20 is bits 104-123, so bytes 13-15 shifted by 0, 20 bits, signed
    expect_ok -p3 -r "$KVER" -e "probe $M.function(\"stm_bits\") { println(\$b->s20, \$b->uc4) }"
    grep -qE 'STP_DW_READ\(t[0-9]+, c, \(dwa[0-9]+ \+ \(unsigned long\)13L\), 3, 0, "[^"]*", out\);' stdout
    grep -qE 'stp_dw_bits\(\(u64\)t[0-9]+, 0, 20, 1\);' stdout
    grep -qE 'stp_dw_bits\(\(u64\)t[0-9]+, 4, 4, 0\);' stdout
    # type spellings as SystemTap prints them (stap -L)
    expect_ok -L "$M.function(\"stm_pointers\")" -r "$KVER"
    grep -q ' \$ip:int\* \$str:char const\* \$vp:void\* \$buf:char\* \$inner:struct stm_inner\* \$nullstr:char const\*$' stdout
    expect_ok -L "$M.function(\"stm_locals\")" -r "$KVER"
    grep -q ' \$pt:struct stm_inner \$word:char\[\] .*\$small:unsigned char ' stdout
    expect_ok -L "$M.function(\"stm_ints_unsigned\")" -r "$KVER"
    grep -q ' \$us:short unsigned int .*\$ull:long long unsigned int$' stdout
    # errors name the type that lacks the member
    s="probe $M.function(\"stm_struct\") { println(\$p->nope) }"
    expect_error "<input>:1:$(col "$s" '->nope'): semantic error" "struct stm_outer has no member 'nope'" -p2 -r "$KVER" -e "$s"
    s="probe $M.function(\"stm_struct\") { println(\$p->in) }"
    expect_error "<input>:1:$(col "$s" '$p'): semantic error" "'\$p->in' is a struct stm_inner, which is not a value" \
        -p2 -r "$KVER" -e "$s"
}
