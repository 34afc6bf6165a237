# process-glob: a glob in process("PATH") probes every ELF file it matches (two libraries, each hit with its own value; a text file of the same pattern skipped); one matching nothing is an error at the pattern
# Used by tests/run (issue 31): translator/elaborate/procglob.c, expand.c.

build() {
    mkdir -p lib
    for v in 1 2; do
        printf 'int gt_value(int x) { return x + %d; }\n' $v >gt$v.c
        gcc -g -O0 -fPIC -shared -o lib/libgt.so.$v gt$v.c
        printf 'int gt_value(int);\nint main(void) { return gt_value(%d) == %d ? 0 : 1; }\n' $((v * 10)) $((v * 10 + v)) >main$v.c
        gcc -g -O0 -o prog$v main$v.c lib/libgt.so.$v -Wl,-rpath,'$ORIGIN/lib'
    done
    # matches the pattern, but is no ELF file: left out, as a linker script would be
    echo 'GROUP ( libgt.so.1 )' >lib/libgt.so.txt
    # an ELF file of another class (a 32-bit library, as /usr/lib32's under /lib*): left out too
    cp lib/libgt.so.1 lib/libgt.so.32bit
    printf '\001' | dd of=lib/libgt.so.32bit bs=1 seek=4 conv=notrunc status=none
    $STAP -p4 -m t_pglob -e '
probe process("lib/libgt.so*").function("gt_value") { printf("%s x=%d\n", pp(), $x) }
probe process("lib/libgt.so*").function("gt_value").return { printf("return %d\n", $return) }' >/dev/null
    # -p2: one probe per library
    [[ $($STAP -p2 -e 'probe process("lib/libgt.so*").function("gt_value") { }' | grep -c '^process(') == 2 ]]
    # nothing matches: the usual error, at the pattern
    not $STAP -p2 -e 'probe process("lib/nothing*.so").function("gt_value") { }' >/dev/null 2>nomatch.err
    grep -q '^<input>:1:15: semantic error: process("lib/nothing\*.so"): no 64-bit x86-64 ELF file matches$' nomatch.err
    # optional: left out quietly
    $STAP -p2 -e 'probe process("lib/nothing*.so").function("gt_value") ?, begin { }' >/dev/null
}

guest() {
    staprun -c 'sh -c "./prog1 && ./prog2"' t_pglob.ko
}

check() {
    [[ $(cat rc) == 0 ]] || { cat err; return 1; }
    cat >want <<W
process("$CASE_DIR/lib/libgt.so.1").function("gt_value@$CASE_DIR/gt1.c:1") x=10
return 11
process("$CASE_DIR/lib/libgt.so.2").function("gt_value@$CASE_DIR/gt2.c:1") x=20
return 22
W
    diff want out
    [[ ! -s err ]]
}
