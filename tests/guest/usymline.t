# usymfileline, usymfile, usymline: source file and line of user addresses from the probed program's DWARF line table (tests/uprobe/ustack.c -O0): a statement probe's own line, a function's first line after its prologue, the caller's line of return addresses; the address in hex for libc (no line table) and for an address no file maps
# Used by tests/run (issue 31): translator/kmodule/ulines.c (the tables, embedded by usyms.c), runtime/core/ustack.h (stp_uline_one), tapset/linux/ucontext-symbols.stp.

timeout_s=90

build() {
    gcc -g -O0 -o ustack "$TOP/tests/uprobe/ustack.c"
    $STAP -p4 --ldd -m t_uline -e '
probe process(@1).statement("inner@ustack.c:19") {
	printf("stmt %s|%s|%s\n", usymfileline(uaddr()), usymfile(uaddr()), usymline(uaddr()))
	printf("callers %s %s %s\n", usymfileline(ustack(1)), usymline(ustack(2)), usymline(ustack(3)))
	printf("libc %s %d\n", usymname(ustack(4)), usymfileline(ustack(4)) == sprintf("0x%016x", ustack(4)))
	printf("none %s|%s|%s\n", usymfileline(0), usymfile(0), usymline(0))
}
probe process(@1).function("leaf") { printf("leaf %s\n", usymline(uaddr())) }' "$CASE_DIR/ustack" >/dev/null
}

guest() {
    staprun -c "$CASE_DIR/ustack 1" t_uline.ko >uline.out 2>uline.err
}

check() {
    local src=$TOP/tests/uprobe/ustack.c
    [[ ! -s uline.err ]]
    # main -> outer (line 59) -> middle (33) -> inner (25): each return address on its call's line
    diff <(grep -v '^inner \|^ustack done' uline.out) - <<EOW
stmt $src:19|$src|19
callers $src:25 33 59
libc __libc_start_call_main 1
none 0x0000000000000000|0x0000000000000000|0x0000000000000000
leaf 41
EOW
}
