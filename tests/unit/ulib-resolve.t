# process("EXE").library("LIB") and user files on the host: libraries found through DT_RUNPATH, DT_RPATH with $ORIGIN, LD_LIBRARY_PATH and globs, bare sonames, separate debuginfo by .gnu_debuglink, ELF aliases, globals moved by the load bias (PIE) or not (non-PIE), errors
# Used by tests/run (issue 17): translator/providers/ulibs.c, translator/dwarf/userfile.c and the user side of translator/dwarf/loc.c, on the host and under ASan.

timeout_s=300

run() {
    source "$TOP/tests/lib/assert.sh"
    export SYSTEMTAP_DIR=$PWD/stapdir
    local src=$TOP/tests/uprobe/ulib out c
    gcc -g -O0 -fPIC -shared -o libulib.so "$src/libulib.c"
    gcc -g -O0 -I"$src" -o ulibmain "$src/ulibmain.c" -L. -lulib -Wl,-rpath,'$ORIGIN'
    mkdir -p rp/lib ld
    cp libulib.so rp/lib/
    cp libulib.so ld/
    gcc -g -O0 -I"$src" -o rp/ulibrp "$src/ulibmain.c" -L. -lulib -Wl,--disable-new-dtags,-rpath,'$ORIGIN/lib'
    gcc -g -O0 -I"$src" -o ulibnp "$src/ulibmain.c" -L. -lulib
    readelf -d rp/ulibrp | grep -q '(RPATH)'
    # by soname through DT_RUNPATH $ORIGIN, and by glob: the point becomes one on the library's file
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./ulibmain").library("libulib.so").function("ulib_step") {}' |
          sed -n 's@ /\* <- .*@@p')
    [[ $out == "process(\"$PWD/libulib.so\").function(\"ulib_step@$src/libulib.c:15\")" ]]
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./ulibmain").library("libul*").function("ulib_s*").return {}' |
          sed -n 's@ /\* <- .*@@p')
    [[ $(wc -l <<<"$out") == 3 ]]
    grep -qx "process(\"$PWD/libulib.so\").function(\"ulib_sum@$src/libulib.c:29\").return" <<<"$out"
    # DT_RPATH with $ORIGIN; LD_LIBRARY_PATH for a program without either
    "$STAP" -r "$KVER" -p2 -e 'probe process("./rp/ulibrp").library("libulib.so").function("ulib_done") {}' |
        grep -q "^process(\"$PWD/rp/lib/libulib.so\").function(\"ulib_done@"
    LD_LIBRARY_PATH=$PWD/ld "$STAP" -r "$KVER" -p2 -e 'probe process("./ulibnp").library("libulib.so").function("ulib_done") {}' |
        grep -q "^process(\"$PWD/ld/libulib.so\").function(\"ulib_done@"
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./ulibnp").library("libulib.so").function("ulib_done") {}' 2>err
    grep -q 'library("libulib.so"): no such library' err
    # a glob matching nothing is no error when the point is optional
    "$STAP" -r "$KVER" -p2 -e 'probe process("./ulibmain").library("libnomatch*").function("f") ?, begin {}' >/dev/null
    # the library needs no exec bit
    chmod a-x libulib.so
    "$STAP" -r "$KVER" -p2 -e 'probe process("./libulib.so").function("ulib_done") {}' >/dev/null
    # libstdc++ by soname, through the loader's cache
    "$STAP" -r "$KVER" -l 'process("libstdc++.so.6").mark("throw")' |
        grep -qx 'process("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.[0-9.]*").provider("libstdcxx").mark("throw")'
    # a global of a library: its link-time address plus the load bias of the probed file; of a
    # non-PIE program: its address as linked
    c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./libulib.so").function("ulib_done") { println($ulib_counter) }')
    grep -q "0x[0-9a-f]*UL + stp_ubias(c, \"$PWD/libulib.so\")" <<<"$c"
    grep -q "\.link = 0x[0-9a-f]*UL, \.offset = 0x" <<<"$c"
    cat >np.c <<'EOF'
int np_global = 7;
int np_get(void) { return np_global; }
int main(void) { return np_get() - 7; }
EOF
    gcc -g -O0 -no-pie -o np np.c
    c=$("$STAP" -r "$KVER" -p3 -e 'probe process("./np").function("np_get") { println($np_global) }')
    grep -q "0x$(nm np | awk '$3 == "np_global" { print $1 }' | sed 's/^0*//')UL" <<<"$c"
    not grep -q 'stp_ubias(c' <<<"$c"
    # separate debuginfo named by .gnu_debuglink, in .debug/ beside the file
    gcc -g -O0 -fPIC -shared -o libsep.so "$src/libulib.c"
    mkdir -p .debug
    objcopy --only-keep-debug libsep.so .debug/libsep.so.debug
    objcopy --strip-debug --add-gnu-debuglink=.debug/libsep.so.debug libsep.so
    "$STAP" -r "$KVER" -L 'process("./libsep.so").function("ulib_step")' |
        grep -qx "process(\"$PWD/libsep.so\").function(\"ulib_step@$src/libulib.c:15\") \$k:int \$square:int \$slot:int"
    # @cast and @var against a user file
    "$STAP" -r "$KVER" -p2 -e 'probe process("./ulibmain").function("main") {
        println(@cast(0, "ulib_state_t", "./libulib.so")->total + @var("ulib_counter@libulib.c", "./libsep.so")) }' >/dev/null
    not "$STAP" -r "$KVER" -p2 -e 'probe begin { println(@cast(0, "struct nosuch", "./libulib.so")->x) }' 2>err
    grep -q "type 'struct nosuch' not found in the debuginfo of ./libulib.so" err
    # stripped, with nothing separate
    cp libulib.so libstripped.so
    strip libstripped.so
    # (its target variables, at least: its functions may come from the symbol table)
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./libstripped.so").function("ulib_step") { println($k) }' 2>err
    grep -q "no DWARF.*$PWD/libstripped.so" err
    not "$STAP" -r "$KVER" -p2 -e 'probe begin { println(@cast(0, "ulib_state_t", "./libstripped.so")->calls) }' 2>err
    grep -q "no DWARF debuginfo in $PWD/libstripped.so (build it with -g), nor separate debuginfo" err
    # a glob over the libraries leaves out those without DWARF
    gcc -g -O0 -I"$src" -o ulibstrip "$src/ulibmain.c" -L. -lulib -Wl,--no-as-needed -lstripped -Wl,-rpath,'$ORIGIN'
    readelf -d ulibstrip | grep -q 'Shared library: \[libstripped.so\]'
    out=$("$STAP" -r "$KVER" -p2 -e 'probe process("./ulibstrip").library("lib*").function("ulib_step") {}' |
          sed -n 's@ /\* <- .*@@p')
    [[ $out == "process(\"$PWD/libulib.so\").function(\"ulib_step@$src/libulib.c:15\")" ]]
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./ulibstrip").library("libstripped.so").function("ulib_step") {
        println($k) }' 2>err
    grep -q "no DWARF.*$PWD/libstripped.so" err
    not "$STAP" -r "$KVER" -p2 -e 'probe process("./ulibstrip").library("lib*").function("ulib_nosuch") {}' 2>err
    grep -q "no function 'ulib_nosuch' in the libraries of $PWD/ulibstrip matching 'lib\*'" err
    # libc: malloc is __libc_malloc, from libc6-dbg's separate debuginfo
    if [[ -d /usr/lib/debug/.build-id ]] && dpkg-query -W -f='${db:Status-Abbrev}' libc6-dbg 2>/dev/null | grep -q '^ii'; then
        "$STAP" -r "$KVER" -L 'process("libc.so.6").function("malloc")' |
            grep -q '^process("/usr/lib/x86_64-linux-gnu/libc.so.6").function("__libc_malloc@.*") $bytes:size_t'
    fi
    "$STAP" --dump-probe-types | grep -qx 'process(string).library(string).provider(string).mark(string)'
}
