# zz-tmp: temporary
timeout_s=300
build() {
    RUNTIME=bpf STAP=$TOP/build/bin/stap "$TOP/examples/app-trace/app-trace-ctl" build "$KVER" "$CASE_DIR/obj" >b.out 2>&1 || { cat b.out; return 1; }
}
guest() {
    cat >at.conf <<EOF2
APPS=dd
TRACEDIR=$CASE_DIR/traces
SIZE_MB=1
KEEP=0
RUNTIME=bpf
MODULE=$CASE_DIR/obj/app_trace.bo
EOF2
    export APP_TRACE_CONF=$CASE_DIR/at.conf
    "$TOP/examples/app-trace/app-trace-ctl" start >start.out 2>start.err & START=$!
    for i in $(seq 300); do
        grep -q '^app-trace-ctl: tracing' start.out && break
        kill -0 $START || break
        nap 0.2
    done
    "$TOP/examples/app-trace/app-trace-ctl" apps >apps.out 2>&1 || true
    dd if=/dev/zero of=/tmp/ddx bs=4k count=10 status=none
    "$TOP/examples/app-trace/app-trace-ctl" set-apps "dd cat" >>apps.out 2>&1 || true
    cat /etc/hostname >/dev/null
    "$TOP/examples/app-trace/app-trace-ctl" stop >stop.out 2>&1 || true
    wait $START || true
    ls -la traces > ls.out 2>&1 || true
}
check() {
    for f in b.out start.out start.err apps.out stop.out ls.out; do echo "== $f"; cat $f; done >&2; head -20 traces/*.0 >&2; tail -12 traces/*.0 >&2
    false
}
