# kprobe symbols are checked at translate time when the target kernel's symbol table is at hand
# Used by tests/run (issue 2): a fake build tree whose vmlinux is a small ELF object with a symtab.

run() {
    source "$TOP/tests/lib/assert.sh"
    mkdir -p tree/include/config
    echo 9.9.9-fake >tree/include/config/kernel.release
    echo 'all:' >tree/Makefile
    printf 'void ksys_read(void) {}\nvoid vfs_write(void) {}\n' >syms.c
    cc -c -o tree/vmlinux syms.c
    expect_ok -p2 -r "$PWD/tree" -e 'probe kprobe.function("ksys_read") { }'
    expect_error "<input>:1:23: semantic error" "kernel symbol 'no_such_fn' not found in kernel 9.9.9-fake" \
        -p2 -r "$PWD/tree" -e 'probe kprobe.function("no_such_fn") { }'
    expect_error "<input>:1:23: semantic error" "'a b' is not a kernel symbol name" \
        -p2 -r "$PWD/tree" -e 'probe kprobe.function("a b") { }'
}
