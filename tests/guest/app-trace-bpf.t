# app-trace-bpf: the ops flagship as BPF (RUNTIME=bpf: app-trace-ctl builds app_trace.bo and runs it with staprun) on
# each kernel, as a host that refuses modules runs it: fio's write and read of 1 MiB traced, the trace's bytes of its
# file equal to fio's, every line counted by the totals, nothing lost, self-describing files.
# Used by tests/run (issue 49); tests/secureboot/run runs the same under lockdown=integrity.

timeout_s=300

build() {
    RUNTIME=bpf STAP="$TOP/build/bin/stap" STAP_OPTS=-DSTP_NO_OVERLOAD "$TOP/examples/app-trace/app-trace-ctl" build "$KVER" \
        "$CASE_DIR/at" >/dev/null
    [[ -s at/app_trace.bo ]]
    printf 'APPS=fio\nTRACEDIR=%s\nSIZE_MB=1\nKEEP=0\nRUNTIME=bpf\nMODULE=%s\n' "$CASE_DIR/traces" "$CASE_DIR/at/app_trace.bo" \
        >at.conf
    printf '[global]\nfilename=/tmp/atdata\nsize=1m\nbs=1k\nioengine=psync\nfallocate=none\nstonewall\n[write]\nrw=write\n[read]\nrw=read\n' \
        >at.fio
}

guest() {
    # started as the unit starts it (until it traces), fio traced, stopped as the unit stops it
    dd if=/dev/zero of=/tmp/atdata bs=64k count=16 status=none
    export APP_TRACE_CONF=$CASE_DIR/at.conf
    "$TOP/examples/app-trace/app-trace-ctl" start >at.start.out 2>at.start.err & at=$!
    for i in $(seq 600); do grep -q '^app-trace-ctl: tracing' at.start.out && break; kill -0 $at || break; nap 0.2; done
    fio --output-format=json at.fio >fio.json 2>fio.err
    "$TOP/examples/app-trace/app-trace-ctl" stop >at.stop.out 2>&1
    wait $at; echo $? >at.rc
    "$TOP/examples/app-trace/app-trace-ctl" files >at.files
    rm -f /tmp/atdata
}

check() {
    grep -qx 0 at.rc && [[ ! -s at.start.err ]] || { cat at.start.err at.stop.out; return 1; }
    python3 "$TOP/tests/lib/app-trace-bpf-totals.py" at.files fio.json
}
