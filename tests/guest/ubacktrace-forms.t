# print_ubacktrace(pc, sp, fp), print_ubacktrace_brief(), print_ubacktrace_fileline() and (pc, sp, fp) on tests/uprobe/ustack.c -O0: from the hit's own user registers the same frames as print_ubacktrace(); brief lines "NAME+0xOFF"; fileline lines with " at FILE:LINE" before the module (each return address on its call's line), libc's frame without; nothing from a bad start
# Used by tests/run (issue 31): runtime/core/ustack.h (stp_ubacktrace_print), tapset/linux/ucontext-unwind.stp.

timeout_s=90

build() {
    gcc -g -O0 -o ustack "$TOP/tests/uprobe/ustack.c"
    $STAP -p4 --ldd -m t_ubforms -e '
probe process(@1).function("inner") {
	println("BT"); print_ubacktrace()
	println("REGS"); print_ubacktrace(uaddr(), u_register("rsp"), u_register("rbp"))
	println("BRIEF"); print_ubacktrace_brief()
	println("FL"); print_ubacktrace_fileline()
	println("FLREGS"); print_ubacktrace_fileline(uaddr(), u_register("rsp"), u_register("rbp"))
	println("BAD"); print_ubacktrace(0, 0, 0)
	println("END")
}' "$CASE_DIR/ustack" >/dev/null
}

guest() {
    staprun -c "$CASE_DIR/ustack 1" t_ubforms.ko >forms.out 2>forms.err
}

# section FILE NAME: the lines between NAME and the next upper-case line
section() { grep -v '^inner \|^ustack done' "$1" | sed -n "/^$2\$/,/^[A-Z]*\$/p" | sed '1d;$d'; }

check() {
    local bin=$CASE_DIR/ustack src=$TOP/tests/uprobe/ustack.c
    [[ ! -s forms.err ]] || { cat forms.err; return 1; }
    [[ $(section forms.out BT | wc -l) -ge 5 ]]
    diff <(section forms.out BT) <(section forms.out REGS)
    # brief: name and offset only
    diff <(section forms.out BRIEF | head -n 5 | sed 's/+0x[0-9a-f]*$//') - <<EOW
inner
middle
outer
main
__libc_start_call_main
EOW
    # fileline: inner's entry (after the prologue: its first line, 15), then each call's line
    diff <(section forms.out FL | head -n 4 | sed -E 's/^ 0x[0-9a-f]{16} : ([a-z]+)\+0x[0-9a-f]+\/0x[0-9a-f]+ (.*)$/\1 \2/') - <<EOW
inner at $src:15 [$bin]
middle at $src:25 [$bin]
outer at $src:33 [$bin]
main at $src:59 [$bin]
EOW
    section forms.out FL | sed -n 5p | grep -qE '^ 0x[0-9a-f]{16} : __libc_start_call_main\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc.so.6\]$'
    diff <(section forms.out FL) <(section forms.out FLREGS)
    [[ -z $(section forms.out BAD) ]]
}
