# debuginfod - DWARF fetched on demand from a real debuginfod (127.0.0.1) indexing the kernel's DWARF files and Debian's libc6-dbg .deb, none local: a local of vfs_read at a statement, module("dummy")'s $dev->name, libc's malloc $bytes (libc6-dbg); cached second runs ask nothing; pass-2 times against local debuginfo
# Used by tests/run (issue 36): translator/dwarf/debuginfod.c from debuginfo.c and providers/ulibs.c. The server's files
# and index are scripts/install-deps.sh's ($STAP_TEST_CACHE/debuginfod-files, debuginfod/files.sqlite; see tests/lib/debuginfod.sh).

timeout_s=900

kscript='probe kernel.statement("vfs_read@fs/read_write.c:475") { if (execname() == "dd") printf("ret %d\n", $ret) }'
mscript='probe module("dummy").function("dummy_dev_init") { printf("init %s\n", kernel_string($dev->name)) }'
uscript='probe process("/lib/x86_64-linux-gnu/libc.so.6").function("malloc") { if ($bytes > 70000 && $bytes < 70100) printf("malloc %d\n", $bytes) }'

# p2_ms NAME SCRIPT: runs stap -p2 on SCRIPT (its stderr in NAME.err), prints how many ms it took
p2_ms() {
    local t0 t1
    t0=$(date +%s%N)
    $STAP -p2 -e "$2" >"$1.out" 2>"$1.err" || { cat "$1.err" >&2; return 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

build() {
    command -v debuginfod >/dev/null || { echo "no debuginfod (make deps)"; exit 77; }
    source "$TOP/tests/lib/debuginfod.sh"
    local cdeb=("$DBGD_FILES"/libc6-dbg_*.deb)
    [[ -e $DBGD_FILES/vmlinux-$KVER && -e $DBGD_FILES/dummy-$KVER.ko && -e ${cdeb[0]} ]] ||
        { echo "no kernel DWARF or libc6-dbg .deb in $DBGD_FILES (make deps)"; exit 77; }
    local src=$TOP/tests/uprobe/ulib
    gcc -g -O0 -fPIC -shared -o libulib.so "$src/libulib.c"
    gcc -g -O0 -I"$src" -o ulibmain "$src/ulibmain.c" -L. -lulib -Wl,-rpath,'$ORIGIN'

    mkdir -p "${DBGD_INDEX%/*}" nodbg
    local t0=$SECONDS
    dbgd_start "$DBGD_FILES" "$DBGD_INDEX" dbgd.log
    eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'dbgd_stop; /")"
    echo "debuginfod ready (index) in $((SECONDS - t0)) s"

    # none of it local: the kernel's, the modules' and libc's debuginfo only on the server
    export STAP_DEBUGINFO_PATH=$PWD/nodbg DEBUGINFOD_URLS=$DBGD_URL DEBUGINFOD_CACHE_PATH=$PWD/cache
    local case before cold cached
    declare -A ms label=([k]="kernel local" [m]="module dummy" [u]="libc malloc")
    for case in k m u; do
        local script=${case}script
        export SYSTEMTAP_DIR=$PWD/sd-$case
        ms[$case.cold]=$(p2_ms "$case.cold" "${!script}")
        before=$(dbgd_requests dbgd.log)
        ms[$case.cached]=$(p2_ms "$case.cached" "${!script}")
        # the second run asks the server nothing
        [[ $(dbgd_requests dbgd.log) == "$before" ]] || { echo "$case: cached run asked the server"; return 1; }
        diff "$case.cold.out" "$case.cached.out"
    done
    # the download was shown, with what it is for
    grep -q "^stap: debuginfod: downloaded debuginfo for kernel $KVER from $DBGD_URL/buildid/[0-9a-f]*/debuginfo: [0-9.]* MB" k.cold.err ||
        { cat k.cold.err; return 1; }
    grep -q 'kernel.statement("vfs_read@fs/read_write.c:475")' k.cold.out
    grep -q 'module("dummy").function("dummy_dev_init@drivers/net/dummy.c:[0-9]*")' m.cold.out
    grep -q 'process("/usr/lib/x86_64-linux-gnu/libc.so.6").function("__libc_malloc@.*malloc.c:[0-9]*")' u.cold.out ||
        { cat u.cold.out; return 1; }
    # -l and -L list from the fetched DWARF (cached now): dummy's functions with their source lines
    $STAP -l 'module("dummy").function("dummy_*")' >m.list
    grep -qx 'module("dummy").function("dummy_dev_init@drivers/net/dummy.c:[0-9]*")' m.list
    grep -qx 'module("dummy").function("dummy_setup@drivers/net/dummy.c:[0-9]*")' m.list
    $STAP -L 'module("dummy").function("dummy_dev_init")' | grep -q '\$dev:struct net_device\*'
    $STAP -L 'kernel.statement("vfs_read@fs/read_write.c:475")' | grep -q '\$ret:ssize_t'
    # the modules, compiled against the fetched DWARF
    export SYSTEMTAP_DIR=$PWD/sd-p4
    seed_stapdir "$SYSTEMTAP_DIR"
    $STAP -p4 -m t_dbgdk -e "$kscript" >/dev/null
    $STAP -p4 -m t_dbgdm -e "$mscript" >/dev/null
    $STAP -p4 -m t_dbgdu -e "$uscript" >/dev/null
    dbgd_stop

    # the same with local debuginfo: the kernel's and libc's installed, dummy's the file fetched above
    local dummy
    dummy=cache/$(readelf -n "/lib/modules/$KVER/kernel/drivers/net/dummy.ko" | sed -n 's/.*Build ID: //p')/debuginfo
    [[ -s $dummy ]] || dummy=
    mkdir -p local/boot "local/lib/modules/$KVER/kernel/drivers/net"
    if [[ -e /usr/lib/debug/boot/vmlinux-$KVER && -d /usr/lib/debug/.build-id && -n $dummy ]]; then
        ln -sf "/usr/lib/debug/boot/vmlinux-$KVER" local/boot/
        ln -sfn /usr/lib/debug/.build-id local/.build-id
        cp "$dummy" "local/lib/modules/$KVER/kernel/drivers/net/dummy.ko"
        export STAP_DEBUGINFO_PATH=$PWD/local
        unset DEBUGINFOD_URLS
        for case in k m u; do
            local script=${case}script
            export SYSTEMTAP_DIR=$PWD/sdl-$case
            ms[$case.lcold]=$(p2_ms "$case.lcold" "${!script}")
            ms[$case.lwarm]=$(p2_ms "$case.lwarm" "${!script}")
            diff "$case.cold.out" "$case.lcold.out"
        done
    fi
    {
        echo "pass-2 ms       debuginfod-cold  debuginfod-cached  local-cold-index  local-cached-index"
        for case in k m u; do
            printf '%-15s %15s %18s %17s %19s\n' "${label[$case]}" "${ms[$case.cold]}" "${ms[$case.cached]}" \
                "${ms[$case.lcold]:-}" "${ms[$case.lwarm]:-}"
        done
    } | tee timings.txt
}

guest() {
    staprun -c 'dd if=/dev/zero of=/dev/null bs=3 count=4 2>/dev/null' t_dbgdk.ko >k.run
    modprobe dummy numdummies=0
    staprun -c 'ip link add dbgd0 type dummy' t_dbgdm.ko >m.run
    ip link del dbgd0
    staprun -c "$CASE_DIR/ulibmain 4" t_dbgdu.ko >u.run
}

check() {
    cat k.run m.run u.run
    # dd's 4 reads of 3 bytes from /dev/zero (its loader's reads of libraries may come too): vfs_read's local ret
    [[ $(grep -cx 'ret 3' k.run) == 4 ]]
    [[ $(cat m.run) == "init dbgd0" ]]
    diff <(printf 'malloc %d\n' 70001 70002 70003 70004) <(grep '^malloc' u.run)
}
