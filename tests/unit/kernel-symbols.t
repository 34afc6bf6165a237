# kprobe symbols are checked at translate time when the target kernel's symbol table is at hand
# Used by tests/run (issues 2, 7): a fake build tree whose vmlinux is a small ELF object with a symtab;
# the table is cached by the vmlinux's path, size and mtime (translator/kernel.c).

run() {
    source "$TOP/tests/lib/assert.sh"
    export SYSTEMTAP_DIR=$PWD/stapdir
    rm -rf stapdir
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

    # the first run read the table and saved it; the next ones use the saved one
    local cached
    cached=$(ls stapdir/cache/symbols/)
    [[ $(wc -w <<<"$cached") == 1 ]] || { echo "expected one cached table, found: $cached"; return 1; }
    "$STAP" -vv -p2 -r "$PWD/tree" -e 'probe kprobe.function("vfs_write") { }' >/dev/null 2>err
    grep -q "^Kernel symbols: 2 functions of $PWD/tree/vmlinux, from the cache $PWD/stapdir/cache/symbols/$cached (" err ||
        { echo "no cache hit:"; cat err; return 1; }

    # a changed vmlinux is read again (new size and mtime: a new table)
    printf 'void ksys_read(void) {}\nvoid vfs_write(void) {}\nvoid vfs_fsync_range(void) {}\n' >syms.c
    cc -c -o tree/vmlinux syms.c
    touch -d '+1 minute' tree/vmlinux
    "$STAP" -vv -p2 -r "$PWD/tree" -e 'probe kprobe.function("vfs_fsync_range") { }' >/dev/null 2>err ||
        { echo "new symbol refused:"; cat err; return 1; }
    grep -q "^Kernel symbols: 3 functions of .*, read and saved to " err || { echo "not read again:"; cat err; return 1; }

    # a damaged table is not trusted: it is read again and replaced
    local f
    for f in stapdir/cache/symbols/*; do head -c 20 "$f" >"$f.x" && mv "$f.x" "$f"; done
    "$STAP" -vv -p2 -r "$PWD/tree" -e 'probe kprobe.function("vfs_fsync_range") { }' >/dev/null 2>err ||
        { echo "damaged table broke the run:"; cat err; return 1; }
    grep -q "^Kernel symbols: 3 functions of .*, read and saved to " err || { echo "damaged table used:"; cat err; return 1; }
    expect_error "<input>:1:23: semantic error" "kernel symbol 'no_such_fn' not found in kernel 9.9.9-fake" \
        -p2 -r "$PWD/tree" -e 'probe kprobe.function("no_such_fn") { }'

    # --disable-cache: read, nothing written
    rm -rf stapdir
    "$STAP" --disable-cache -vv -p2 -r "$PWD/tree" -e 'probe kprobe.function("ksys_read") { }' >/dev/null 2>err
    grep -q "^Kernel symbols: 3 functions of .*, read (" err || { echo "with --disable-cache:"; cat err; return 1; }
    [[ ! -e stapdir/cache/symbols ]] || { echo "--disable-cache wrote a table"; return 1; }

    # a tree's release is its modules' vermagic (UTS_RELEASE), which Debian's headers give there and not in
    # include/config/kernel.release (the upstream version)
    mkdir -p tree/include/generated
    echo '#define UTS_RELEASE "9.9.9-uts"' >tree/include/generated/utsrelease.h
    expect_error "<input>:1:23: semantic error" "kernel symbol 'no_such_fn' not found in kernel 9.9.9-uts" \
        -p2 -r "$PWD/tree" -e 'probe kprobe.function("no_such_fn") { }'
}
