# debuginfod-attacks - root's debuginfod cache and the download limit (security issue 46, item 4): root with a user's
# DEBUGINFOD_CACHE_PATH, XDG_CACHE_HOME or HOME (kept after sudo or su) holding a planted file for the build id asked
# for: the file is not used, root's own cache is; a server sending more than DEBUGINFOD_MAXSIZE (announced or not,
# and more than the 1 GiB default) is refused at once, and raising the limit lets the file come.
# Used by tests/run: translator/dwarf/debuginfod.c against a busybox httpd and busybox nc on 127.0.0.1.

timeout_s=120

# as_root_home CMD...: CMD with roothome/ mounted over root's home (the password database's) in a mount namespace of
# its own: root's debuginfod cache is written there, not in the machine's.
as_root_home() {
    unshare -m --propagation private bash -ec 'mount --bind "$1" "$2"; shift 2; exec "$@"' _ "$PWD/roothome" "$home" "$@"
}

# fake_server HEADERS MB: busybox nc on a free port answering one request with HEADERS then MB megabytes of zeros,
# then staying silent for 30 s; sets port and DBGD_PID
fake_server() {
    port=$(dbgd_free_port)
    { printf "HTTP/1.1 200 OK\r\n$1\r\n"; head -c $(($2 * 1000000)) /dev/zero; sleep 30; } |
        busybox nc -l -p "$port" >/dev/null &
    DBGD_PID=$!
    local i
    for ((i = 0; i < 50; i++)); do
        [[ -n $(ss -Hltn "sport = :$port" 2>/dev/null) ]] && return 0
        sleep 0.1
    done
}

run() {
    source "$TOP/tests/lib/debuginfod.sh"
    trap dbgd_stop EXIT
    [[ $(id -u) == 0 ]] || { echo "needs root"; exit 77; }
    export SYSTEMTAP_DIR=$PWD/stapdir STAP_DEBUGINFO_PATH=$PWD/nodbg
    unset DEBUGINFOD_CACHE_PATH XDG_CACHE_HOME DEBUGINFOD_MAXSIZE
    mkdir -p nodbg
    home=$(getent passwd 0 | cut -d: -f6)
    [[ -d $home ]]
    # a program whose DWARF is only in a separate file, and a planted "debuginfo" with the same build id whose
    # twice() has another parameter
    printf 'int twice(int x) { return 2 * x; }\nint main(int argc, char **argv) { (void)argv; return twice(argc); }\n' >prog.c
    gcc -g -O0 -Wl,--build-id -o prog prog.c
    objcopy --only-keep-debug prog prog.debug
    objcopy --strip-debug prog
    local id
    id=$(readelf -n prog | sed -n 's/.*Build ID: //p')
    [[ -n $id ]]
    printf 'int twice(int planted) { return planted; }\nint main(void) { return twice(1); }\n' >evil.c
    gcc -g -O0 -Wl,--build-id=0x"$id" -o evil evil.c
    [[ $(readelf -n evil | sed -n 's/.*Build ID: //p') == "$id" ]]
    local uprobe='probe process("'"$PWD"'/prog").function("twice") { println($x) }'
    mkdir -p www/buildid/"$id"
    cp prog.debug www/buildid/"$id"/debuginfo
    dbgd_static www
    export DEBUGINFOD_URLS=$DBGD_URL

    # control: root's own directory named by DEBUGINFOD_CACHE_PATH is used as given, no warning
    DEBUGINFOD_CACHE_PATH=$PWD/cache "$STAP" -p2 -e "$uprobe" >ok.out 2>ok.err || { cat ok.err; return 1; }
    not grep -q 'warning' ok.err
    cmp prog.debug cache/"$id"/debuginfo

    # a user's DEBUGINFOD_CACHE_PATH, XDG_CACHE_HOME and HOME, each holding the planted file where libdebuginfod
    # would look for the build id: root fetches into its own cache ($x found), the planted file untouched
    local how dir planted
    for how in cache_path xdg home; do
        rm -rf user roothome stapdir
        mkdir -m 700 roothome
        mkdir user
        case $how in
            cache_path) dir=$PWD/user/cache; set -- env DEBUGINFOD_CACHE_PATH="$dir" ;;
            xdg) dir=$PWD/user/xdg/debuginfod_client; set -- env XDG_CACHE_HOME="$PWD/user/xdg" ;;
            home) dir=$PWD/user/.cache/debuginfod_client; set -- env HOME="$PWD/user" ;;
        esac
        mkdir -p "$dir/$id"
        objcopy --only-keep-debug evil "$dir/$id/debuginfo"
        planted=$(sha256sum <"$dir/$id/debuginfo")
        chown -R 65534 user
        as_root_home "$@" "$STAP" -p2 -e "$uprobe" >"$how.out" 2>"$how.err" || { echo "$how:"; cat "$how.err"; return 1; }
        grep -q 'function("twice@.*prog.c:1")' "$how.out" || { cat "$how.out"; return 1; }
        grep -qx "stap: warning: cache directory $dir is inside $PWD/user, which is owned by uid 65534: not using the cache" "$how.err" ||
            { echo "$how:"; cat "$how.err"; return 1; }
        grep -qx "stap: warning: debuginfod: root's downloads are kept in $home/.cache/debuginfod_client, not in $dir" "$how.err"
        cmp prog.debug roothome/.cache/debuginfod_client/"$id"/debuginfo
        [[ $(sha256sum <"$dir/$id/debuginfo") == "$planted" ]]
        [[ $(find user -newer evil.c -user 0 | wc -l) == 0 ]] || { find user -ls; return 1; }
    done
    set --

    # the download limit, against the real file (libdebuginfod's check of the announced size): too small a
    # DEBUGINFOD_MAXSIZE refuses it, nothing kept; a larger one lets it come
    export DEBUGINFOD_CACHE_PATH=$PWD/cache
    rm -rf cache
    DEBUGINFOD_MAXSIZE=1000 not "$STAP" -p2 -e "$uprobe" 2>small.err
    grep -q "^WARNING: debuginfod: the debuginfo of build id $id ($PWD/prog) from .* is larger than 1000 bytes: refused (set DEBUGINFOD_MAXSIZE to the bytes to allow, 0 for no limit)$" small.err ||
        { cat small.err; return 1; }
    [[ ! -s cache/$id/debuginfo ]]
    DEBUGINFOD_MAXSIZE=100000000 "$STAP" -p2 -e "$uprobe" >big.out 2>big.err || { cat big.err; return 1; }
    cmp prog.debug cache/"$id"/debuginfo
    DEBUGINFOD_MAXSIZE=12x not "$STAP" -p2 -e "$uprobe" 2>badsize.err
    grep -qx "WARNING: debuginfod: DEBUGINFOD_MAXSIZE='12x' is not a size in bytes (0: no limit)" badsize.err || { cat badsize.err; return 1; }
    dbgd_stop

    # a server that announces no size and sends on (3 MB, then silence): stopped once past the limit, at once
    local t0
    rm -rf cache
    fake_server '' 3
    t0=$SECONDS
    DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_MAXSIZE=1000000 not "$STAP" -p2 -e "$uprobe" 2>stream.err
    grep -q "^WARNING: debuginfod: the debuginfo of build id $id ($PWD/prog) from http://127.0.0.1:$port/buildid/$id/debuginfo is larger than 1000000 bytes: refused" stream.err ||
        { cat stream.err; return 1; }
    (( SECONDS - t0 < 20 )) || { echo "took $((SECONDS - t0)) s"; return 1; }
    [[ -z $(find cache -path "*$id*" -type f -size +0) ]] || { find cache -ls; return 1; }
    dbgd_stop

    # the default limit: 1 GiB when DEBUGINFOD_MAXSIZE is unset (a 2 GB file announced: refused before it comes)
    fake_server 'Content-Length: 2000000000\r\n' 1
    t0=$SECONDS
    DEBUGINFOD_URLS=http://127.0.0.1:$port not "$STAP" -p2 -e "$uprobe" 2>default.err
    grep -q "^WARNING: debuginfod: the debuginfo of build id $id ($PWD/prog) from .* is larger than 1073741824 bytes: refused" default.err ||
        { cat default.err; return 1; }
    (( SECONDS - t0 < 20 )) || { echo "took $((SECONDS - t0)) s"; return 1; }
    dbgd_stop
}
