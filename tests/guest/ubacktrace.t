# ubacktrace: user-space symbols and backtraces on tests/uprobe/ustack.c (-O0 and -O2): print_ubacktrace/sprint_ubacktrace/print_ustack name inner, middle, outer, main and (with --ldd) __libc_start_call_main in order with the binary's path; usymname/usymdata/umodname of uaddr(); ucallers(3) + print_usyms; ustack(n); a recursion of known depth; hex frames for libc without -d; a kernel probe (syscall.write) naming the program's caller of write(2); seeds 038 (refused: cat has no debuginfo) and 052 (vm.brk/vm.mmap/vm.munmap with -d python --ldd)
# Used by tests/run (issue 17, user backtraces): translator/kmodule/usyms.c, runtime/core/ustack.h, runtime/core/unwind.h, tapset/linux/ucontext-*.stp.

timeout_s=400

build() {
    gcc -g -O0 -o ustack "$TOP/tests/uprobe/ustack.c"
    gcc -g -O2 -o ustack-O2 "$TOP/tests/uprobe/ustack.c"
    P=$CASE_DIR/ustack
    local bt='
probe process(@1).function("inner") {
	println("BT"); print_ubacktrace()
	printf("name %s\n", usymname(uaddr()))
	printf("mod %s\n", umodname(uaddr()))
	printf("data %s\n", usymdata(uaddr()))
	printf("up1 %s up2 %s\n", usymname(ustack(1)), usymname(ustack(2)))
	println("CALLERS"); print_usyms(ucallers(3))
	println("SPRINT"); print(sprint_ubacktrace())
	println("STACK"); print_ustack(ubacktrace())
	println("END")
}
probe process(@1).function("leaf") { println("LEAF"); print(sprint_usyms(ubacktrace())); println("END") }'
    $STAP -p4 --ldd -m t_ubt -e "$bt" "$P" >/dev/null
    $STAP -p4 --ldd -m t_ubto2 -e "$bt" "$P-O2" >/dev/null
    # MAXBACKTRACE bounds the user backtrace too
    $STAP -p4 -DMAXBACKTRACE=3 -m t_ubtmax -e 'probe process(@1).function("leaf") { print_ubacktrace() }' "$P" >/dev/null
    # no -d for libc: its frames in hex
    $STAP -p4 -m t_ubtnolibc -e 'probe process(@1).function("inner") { print_ubacktrace() }' "$P" >/dev/null
    # a kernel probe in the program's context: write(2) from inner(); the program and libc from
    # -d PATH and --ldd (no process probe names them)
    local kw='
global done
probe syscall.write { if (pid() == target() && !done) { done = 1; print_ubacktrace() } }'
    $STAP -p4 -d "$P-O2" --ldd -m t_ubtk -e "$kw" >/dev/null
    $STAP -p4 -d "$P-O2" -m t_ubtknolibc -e "$kw" >/dev/null
    # timer.profile: interrupts in user and kernel mode of the busy program (named up to main),
    # and of every other task (unknown files: hex, frame pointers over whatever the stack holds)
    $STAP -p4 -d "$P-O2" --ldd -m t_ubtprof -e '
global n, named, hexed, other
probe timer.profile {
	if (pid() == target()) {
		n++; bt = sprint_ubacktrace()
		if (isinstr(bt, "main+")) named++
		else if (substr(bt, 0, 2) == "0x") hexed++
	} else other += strlen(ubacktrace()) > 0
	if ((named >= 20 || hexed >= 100) && other >= 20) exit()
}
probe timer.s(60) { exit() }
probe end { printf("profile named %d hex %d other %d (%d samples)\n", named >= 20, hexed >= 100, other >= 20, n) }' >/dev/null
    # the seed corpus: 038 is refused at translation (cat has no DWARF and no function read);
    # 052 runs with python's symbols
    if [[ -f $(seed_dir)/INDEX.md ]]; then
        seed_need 038 052
        not $STAP -p2 "$(seed_file 038)" 2>seed038.err
        $STAP -p4 -d /usr/bin/python3.11 --ldd -m seed_052 "$(seed_file 052)" >/dev/null
        touch have-seeds
    fi
}

guest() {
    staprun -c "$CASE_DIR/ustack 1" t_ubt.ko >o0.out 2>o0.err
    staprun -c "$CASE_DIR/ustack 1" t_ubt.ko >o0b.out 2>o0b.err
    staprun -c "$CASE_DIR/ustack-O2 1" t_ubto2.ko >o2.out 2>o2.err
    staprun -c "$CASE_DIR/ustack 1" t_ubtmax.ko >max.out 2>max.err
    staprun -c "$CASE_DIR/ustack 1" t_ubtnolibc.ko >nolibc.out 2>nolibc.err
    staprun -c "$CASE_DIR/ustack-O2 1" t_ubtk.ko >k.out 2>k.err
    staprun -c "$CASE_DIR/ustack-O2 1" t_ubtknolibc.ko >knolibc.out 2>knolibc.err
    local run
    local spin
    ./ustack-O2 100000000 >/dev/null &
    run=$!
    sh -c 'while :; do :; done' &
    spin=$!
    staprun -x $run t_ubtprof.ko >prof.out 2>prof.err
    kill $run $spin
    wait $run $spin || true
    if [[ -e have-seeds ]]; then
        seed_run 052 'python3.11 -c "range(10000)"'
    fi
}

# ubt_names FILE SECTION: the function of each line of SECTION (print_ubacktrace / print_usyms
# lines " ADDR : NAME+0xOFF/0xSIZE [PATH]", sprint lines "NAME+0xOFF [PATH]"), one a line
ubt_names() {
    sed -n "/^$2\$/,/^\(END\|[A-Z]*\)\$/p" "$1" | sed -n 's/^\( 0x[0-9a-f]* : \)\{0,1\}\([A-Za-z_][A-Za-z_0-9.]*\)+0x[0-9a-f]*.*/\2/p'
}

ubt_check() {
    local f=$1 bin=$2 chain
    chain=$'inner\nmiddle\nouter\nmain\n__libc_start_call_main'
    # print_ubacktrace: the chain in order, each with the binary's path, libc's frame with libc's
    [[ $(ubt_names "$f" BT | head -n 5) == "$chain" ]] || { echo "$f: BT"; cat "$f"; return 1; }
    grep -qE "^ 0x[0-9a-f]{16} : inner\+0x[0-9a-f]+/0x[0-9a-f]+ \[$bin\]\$" "$f"
    grep -qE "^ 0x[0-9a-f]{16} : middle\+0x[0-9a-f]+/0x[0-9a-f]+ \[$bin\]\$" "$f"
    grep -qE "^ 0x[0-9a-f]{16} : __libc_start_call_main\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc.so.6\]\$" "$f"
    grep -qx 'name inner' "$f"
    grep -qx "mod $bin" "$f"
    grep -qE "^data inner\+0x[0-9a-f]+/0x[0-9a-f]+ \[$bin\]\$" "$f"
    grep -qx 'up1 middle up2 outer' "$f"
    # ucallers(3): four addresses
    [[ $(ubt_names "$f" CALLERS) == $'inner\nmiddle\nouter\nmain' ]] || { echo "$f: CALLERS"; return 1; }
    [[ $(ubt_names "$f" SPRINT | head -n 5) == "$chain" ]] || { echo "$f: SPRINT"; return 1; }
    grep -qE "^outer\+0x[0-9a-f]+ \[$bin\]\$" "$f"
    [[ $(ubt_names "$f" STACK | head -n 5) == "$chain" ]] || { echo "$f: STACK"; return 1; }
    # the recursion: leaf, recurse(0)..recurse(4), main
    [[ $(ubt_names "$f" LEAF | head -n 7) == $'leaf\nrecurse\nrecurse\nrecurse\nrecurse\nrecurse\nmain' ]] ||
        { echo "$f: LEAF"; return 1; }
    grep -qx 'inner 2' "$f"
    grep -qx 'ustack done 10' "$f"
    [[ ! -s ${f%.out}.err ]]
}

check() {
    ubt_check o0.out "$CASE_DIR/ustack"
    ubt_check o0b.out "$CASE_DIR/ustack"
    ubt_check o2.out "$CASE_DIR/ustack-O2"
    [[ $(grep '^ 0x' max.out | sed 's/^ 0x[0-9a-f]* : \([a-z]*\)+.*/\1/') == $'leaf\nrecurse\nrecurse' && ! -s max.err ]] ||
        { echo "max:"; cat max.out max.err; return 1; }
    # without libc's tables: the program's frames named, libc's in hex
    grep -qE "^ 0x[0-9a-f]{16} : main\+0x[0-9a-f]+/0x[0-9a-f]+ \[$CASE_DIR/ustack\]\$" nolibc.out
    [[ $(grep '^ 0x' nolibc.out | sed -n 5p) =~ ^\ (0x[0-9a-f]{16})\ :\ (0x[0-9a-f]{16})$ && ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] ||
        { echo "nolibc:"; cat nolibc.out; return 1; }
    # the kernel probe: write(2) in libc, called by inner, then middle, outer, main
    grep '^ 0x' k.out | sed -n 1p | grep -qE '^ 0x[0-9a-f]{16} : [A-Za-z_]*write[A-Za-z_]*\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc.so.6\]$' ||
        { echo "k:"; cat k.out; return 1; }
    [[ $(sed -n 's/^ 0x[0-9a-f]* : \([a-z_]*\)+.*/\1/p' k.out | sed -n 2,5p) == $'inner\nmiddle\nouter\nmain' ]] ||
        { echo "k:"; cat k.out; return 1; }
    # without libc: write's frame in hex
    grep '^ 0x' knolibc.out | sed -n 1p | grep -qE '^ 0x[0-9a-f]{16} : 0x[0-9a-f]{16}$' || { echo "knolibc:"; cat knolibc.out; return 1; }
    [[ ! -s k.err ]]
    # once, for the first frame in a file without tables
    [[ $(cat knolibc.err) == "WARNING: Missing unwind data for a module, rerun with 'stap -d /usr/lib/x86_64-linux-gnu/libc.so.6'" ]] ||
        { cat knolibc.err; return 1; }
    [[ $(cat nolibc.err) == "WARNING: Missing unwind data for a module, rerun with 'stap -d /usr/lib/x86_64-linux-gnu/libc.so.6'" ]] ||
        { cat nolibc.err; return 1; }
    # PREEMPT_RT: timer.profile runs with interrupts off, where the mmap lock (an rtmutex-based
    # rwsem whose read unlock may re-enable interrupts) is never taken: user frames are in hex
    if kernel_is_rt; then
        grep -qE '^profile named 0 hex 1 other 1 \([0-9]+ samples\)$' prof.out || { cat prof.out prof.err; return 1; }
    else
        grep -qE '^profile named 1 hex [01] other 1 \([0-9]+ samples\)$' prof.out || { cat prof.out prof.err; return 1; }
    fi
    only_skip_warnings prof.err
    if [[ -e have-seeds ]]; then
        grep -q "semantic error" seed038.err
        [[ $(cat 052.rc) == 0 ]] || { cat 052.err; return 1; }
        # python3's brk and mmap calls, each followed by a user backtrace through libc and python
        grep -qE '^ +brk python3.11/[0-9]+ 0x[0-9a-f]+ [0-9]+$' 052.out
        grep -qE '^ +mmap python3.11/[0-9]+ 0x[0-9a-f]+ [0-9]+$' 052.out
        grep -qE '^ 0x[0-9a-f]{16} : [A-Za-z_0-9.]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc.so.6\]$' 052.out
        grep -qE '^ 0x[0-9a-f]{16} : [A-Za-z_0-9.]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/bin/python3.11\]$' 052.out
        grep -qE '^ 0x[0-9a-f]{16} : Py_BytesMain\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/bin/python3.11\]$' 052.out
    fi
}
