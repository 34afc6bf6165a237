# debuginfod.sh - a real debuginfod server on loopback for a test case (indexing DWARF files and Debian -dbg .deb
# files), a stopped one, and a static one serving a chosen file. Used by tests/guest/debuginfod.t,
# tests/unit/debuginfod-errors.t, tests/unit/debuginfod-attacks.t.

# What scripts/install-deps.sh keeps for the server (ensure_debuginfod_files: links to the kernel's vmlinux and
# dummy.ko DWARF, libc6-dbg's .deb) and the server's index, in a cache of the machine's outside the clone
# (STAP_TEST_CACHE, as install-deps.sh has it).
STAP_TEST_CACHE=${STAP_TEST_CACHE:-/var/cache/stap-tests}
DBGD_FILES=${DBGD_FILES:-$STAP_TEST_CACHE/debuginfod-files}
DBGD_INDEX=$STAP_TEST_CACHE/debuginfod/files.sqlite

# dbgd_free_port: a TCP port of 127.0.0.1 that nothing listens on now
dbgd_free_port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 40000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
    done
}

# dbgd_start DIR DB LOG: debuginfod on a free port (it listens on every address; it is asked on 127.0.0.1)
# scanning the ELF files (-F, through symbolic links: -L) and the .deb files (-U) in DIR into the sqlite database
# DB, which is kept: a later start skips what it indexed already. Sets DBGD_URL and DBGD_PID; returns once the
# scan is done (DBGD_WAIT_S, 900 s).
dbgd_start() {
    local dir=$1 db=$2 log=$3 port i metrics
    port=$(dbgd_free_port)
    # niced: the runs beside this case come first
    nice -n 19 debuginfod -F -U -L -p "$port" -d "$db" -t 0 -g 0 --disable-source-scan -v "$dir" >"$log" 2>&1 &
    DBGD_PID=$!
    DBGD_URL=http://127.0.0.1:$port
    for ((i = 0; i < ${DBGD_WAIT_S:-900} * 5; i++)); do
        kill -0 "$DBGD_PID" 2>/dev/null || { echo "debuginfod exited:"; tail -n 5 "$log"; return 1; }
        # the traversal is over and no archive is waiting for or being scanned
        if grep -q 'fts traversed' "$log" && metrics=$(curl -sf "$DBGD_URL/metrics") &&
           ! grep -qE '^thread_work_pending\{role="scan"\} [1-9]' <<<"$metrics" &&
           grep -qx 'thread_busy{role="scan"} 0' <<<"$metrics" &&
           grep -qx 'thread_busy{role="traverse"} 0' <<<"$metrics"; then
            return 0
        fi
        sleep 0.2
    done
    echo "debuginfod: scan of $dir not done after $((i / 5)) s"
    return 1
}

# dbgd_stop: the server of dbgd_start (or dbgd_static) ended
dbgd_stop() {
    [[ -n ${DBGD_PID:-} ]] || return 0
    kill "$DBGD_PID" 2>/dev/null || true
    wait "$DBGD_PID" 2>/dev/null || true
    DBGD_PID=
}

# dbgd_requests LOG: how many build id requests the server of dbgd_start has answered so far
dbgd_requests() { grep -c 'GET /buildid/' "$1"; }

# dbgd_static DIR: busybox httpd serving the files under DIR (DIR/buildid/ID/debuginfo: whatever the test puts
# there) on a free port of 127.0.0.1; sets DBGD_URL and DBGD_PID
dbgd_static() {
    local port i
    port=$(dbgd_free_port)
    busybox httpd -f -p "127.0.0.1:$port" -h "$1" &
    DBGD_PID=$!
    DBGD_URL=http://127.0.0.1:$port
    for ((i = 0; i < 50; i++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "busybox httpd did not start"
    return 1
}
