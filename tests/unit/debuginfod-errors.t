# debuginfod-errors - what stap says when debuginfod cannot help: the server stopped (the kernel falls back to BTF), a build id no server has (404), a served file whose build id does not match (refused, removed from the cache), DEBUGINFOD_URLS unset (nothing asked), a download cancelled by a signal, a compressed module's build id
# Used by tests/run (issue 36): translator/dwarf/debuginfod.c against a real debuginfod and a busybox httpd on 127.0.0.1.

timeout_s=120
cost_s=15

run() {
    command -v debuginfod >/dev/null || { echo "no debuginfod (make deps)"; exit 77; }
    source "$TOP/tests/lib/debuginfod.sh"
    trap dbgd_stop EXIT
    export SYSTEMTAP_DIR=$PWD/stapdir STAP_DEBUGINFO_PATH=$PWD/nodbg DEBUGINFOD_CACHE_PATH=$PWD/cache
    mkdir -p nodbg empty
    # a program whose DWARF is only in a separate file (as a -dbg package ships it), and another one
    printf 'int twice(int x) { return 2 * x; }\nint main(int argc, char **argv) { (void)argv; return twice(argc); }\n' >prog.c
    gcc -g -O0 -Wl,--build-id -o prog prog.c
    objcopy --only-keep-debug prog prog.debug
    objcopy --strip-debug prog
    printf 'int other(int y) { return y + 1; }\nint main(void) { return other(1); }\n' >other.c
    gcc -g -O0 -Wl,--build-id -o other other.c
    local id other_id kid
    id=$(readelf -n prog | sed -n 's/.*Build ID: //p')
    other_id=$(readelf -n other | sed -n 's/.*Build ID: //p')
    [[ -n $id && -n $other_id ]]
    local uprobe='probe process("'"$PWD"'/prog").function("twice") { println($x) }'

    # unset: nothing asked; $x has no DWARF
    not env -u DEBUGINFOD_URLS "$STAP" -p2 -e "$uprobe" 2>unset.err
    grep -q "semantic error: '\$x' is not available: no DWARF describes" unset.err || { cat unset.err; return 1; }
    not grep -q 'WARNING: debuginfod' unset.err

    # a build id no server has: a real debuginfod with nothing indexed answers 404
    dbgd_start empty index.sqlite dbgd.log
    DEBUGINFOD_URLS=$DBGD_URL not "$STAP" -p2 -e "$uprobe" 2>404.err
    grep -q "WARNING: debuginfod: asked $DBGD_URL for the debuginfo of build id $id ($PWD/prog): not found (no server has it: 404)" 404.err ||
        { cat 404.err; return 1; }
    grep -q "semantic error: '\$x' is not available: no DWARF describes" 404.err
    [[ $(dbgd_requests dbgd.log) == 1 ]]
    local url=$DBGD_URL
    dbgd_stop

    # the server stopped: the kernel's function entry is typed from BTF after the warning; a local names both
    rm -rf cache
    DEBUGINFOD_URLS=$url "$STAP" -r "$KVER" -v -p2 -e 'probe kernel.function("vfs_read") { println($count) }' >/dev/null 2>down.err ||
        { cat down.err; return 1; }
    kid=$(sed -n "s/.*for the debuginfo of build id \([0-9a-f]*\) (kernel $KVER): .*/\1/p" down.err | head -n 1)
    [[ -n $kid ]] || { cat down.err; return 1; }
    grep -q "WARNING: debuginfod: asked $url for the debuginfo of build id $kid (kernel $KVER): no server answered (connection refused" down.err
    grep -qx "kernel.function(\"vfs_read\"): 1 site typed from BTF (/boot/vmlinuz-$KVER)" down.err || { cat down.err; return 1; }
    [[ $(grep -c 'WARNING: debuginfod' down.err) == 1 ]]
    DEBUGINFOD_URLS=$url not "$STAP" -r "$KVER" -p2 -e 'probe kernel.statement("vfs_read@fs/read_write.c:475") { }' 2>downstmt.err
    grep -q "kernel.statement probes need the kernel's DWARF" downstmt.err || { cat downstmt.err; return 1; }

    # a compressed module (6.12's .ko.xz) is asked for by the build id inside it, then typed from its BTF
    local xz kx mid
    xz=$(compgen -G '/lib/modules/*/kernel/drivers/net/dummy.ko.xz' | head -n 1) || true
    if [[ -n $xz ]]; then
        kx=${xz#/lib/modules/}
        kx=${kx%%/*}
        mid=$(xz -dc "$xz" >dummy.ko && readelf -n dummy.ko | sed -n 's/.*Build ID: //p')
        DEBUGINFOD_URLS=$url "$STAP" -r "$kx" -p2 -e 'probe module("dummy").function("dummy_dev_init") { println($dev) }' \
            >/dev/null 2>xz.err || { cat xz.err; return 1; }
        grep -q "WARNING: debuginfod: asked $url for the debuginfo of build id $mid (module dummy): no server answered" xz.err ||
            { cat xz.err; return 1; }
    fi

    # a served file whose build id is not the one asked for: refused, and not left in the cache
    mkdir -p www/buildid/"$id"
    cp other www/buildid/"$id"/debuginfo
    dbgd_static www
    DEBUGINFOD_URLS=$DBGD_URL not "$STAP" -p2 -e "$uprobe" 2>bad.err
    grep -q "WARNING: debuginfod: the file $DBGD_URL/buildid/$id/debuginfo served for build id $id ($PWD/prog) has build id $other_id: refused (removed from the cache)" bad.err ||
        { cat bad.err; return 1; }
    [[ ! -e cache/$id/debuginfo ]]
    # the right file from the same server: $x typed from it
    cp prog.debug www/buildid/"$id"/debuginfo
    rm -rf cache
    DEBUGINFOD_URLS=$DBGD_URL "$STAP" -p2 -e "$uprobe" >good.out 2>good.err || { cat good.err; return 1; }
    grep -q 'function("twice@.*prog.c:1")' good.out || { cat good.out; return 1; }
    [[ -s cache/$id/debuginfo ]]
    dbgd_stop

    # SIGTERM, and SIGINT as a terminal's ^C sends it, during a download: cancelled, nothing left in the
    # cache; the server sends 1 MB of 100 and stalls. SIGINT is reset to its default first (perl), as a
    # terminal's foreground job has it: a background job of this non-interactive shell starts with it ignored.
    local sig port
    for sig in TERM INT; do
        rm -rf cache
        port=$(dbgd_free_port)
        # (the stalling writer is a process substitution: as the left side of a pipeline it would be part of
        # nc's job, and the wait for nc below would wait out its sleep)
        busybox nc -l -p "$port" >/dev/null \
            < <(printf 'HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n'; head -c 1000000 /dev/zero; sleep 20) &
        DBGD_PID=$!
        sleep 0.5
        DEBUGINFOD_URLS=http://127.0.0.1:$port perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' \
            "$STAP" -p2 -e "$uprobe" >/dev/null 2>cancel.err &
        local sp=$! rc=0
        sleep 3
        kill -"$sig" "$sp"
        wait "$sp" || rc=$?
        [[ $rc == $((128 + $(kill -l "$sig"))) ]] || { echo "SIG$sig: exit $rc"; cat cancel.err; return 1; }
        grep -q "^stap: debuginfod: downloading debuginfo for $PWD/prog from http://127.0.0.1:$port/buildid/$id/debuginfo: 1.0 MB of 100.0 MB" cancel.err ||
            { cat cancel.err; return 1; }
        grep -q "^stap: debuginfod: download of the debuginfo for $PWD/prog (build id $id) cancelled" cancel.err
        [[ -z $(find cache -path "*$id*" -type f) ]] || { find cache -ls; return 1; }
        kill "$DBGD_PID" 2>/dev/null || true
        wait "$DBGD_PID" 2>/dev/null || true
    done
}
