# the stap driver: passes 2-4 output, -m validation, -v timings, missing kernel tree, no temp files left
# Used by tests/run (issue 2).

run() {
    source "$TOP/tests/lib/assert.sh"
    export TMPDIR=$PWD/tmp
    mkdir -p "$TMPDIR"
    local script='global n; probe kprobe.function("ksys_read") { n[execname()]++ } probe end { foreach (k in n) printf("%s %d\n", k, n[k]) }'
    # -p2: resolved program with types
    expect_ok -p2 -e "$script"
    grep -qx 'n:long \[string\]' stdout
    grep -qx 'kprobe.function("ksys_read") /\* <- kprobe.function("ksys_read") \*/' stdout
    grep -qx '  k:string' stdout
    # -p3: the module's C source
    expect_ok -p3 -m t_drv -r "$KVER" -e "$script"
    grep -q '#define STP_MODULE_NAME "t_drv"' stdout
    grep -q 'stp_kprobe_probes' stdout
    # invalid module names
    expect_plain_error "invalid module name 'a-b'" -m a-b -e 'probe begin {}'
    expect_plain_error "invalid module name" -m "$(printf 'x%.0s' {1..60})" -e 'probe begin {}'
    # a kernel with no build tree: one line naming it, exit 1, no temp directory left
    expect_plain_error "kernel build tree for 9.9.9-none not found at /lib/modules/9.9.9-none/build" \
        -p4 -r 9.9.9-none -e 'probe begin {}'
    expect_plain_error "kernel build tree '/nonexistent/build' not found" -p4 -r /nonexistent/build -e 'probe begin {}'
    # -v: one timing line per pass
    expect_ok -v -p3 -r "$KVER" -e "$script"
    grep -q '^Pass 1: parsed user script .* in [0-9]*usr/[0-9]*sys/[0-9]*real ms\.$' stderr
    grep -q '^Pass 2: ' stderr && grep -q '^Pass 3: ' stderr
    # -p4 with a compile: the .ko is kept here, the temp directory is gone; -k keeps it
    expect_ok -p4 -m t_drv -r "$KVER" -e "$script"
    [[ $(cat stdout) == t_drv.ko && -f t_drv.ko ]]
    [[ -z $(ls -A "$TMPDIR") ]] || { echo "temp files left:"; ls -A "$TMPDIR"; return 1; }
    expect_ok -k -p4 -m t_drv2 -r "$KVER" -e "$script"
    grep -q '^Keeping temporary directory' stderr
    [[ -f $(ls -d "$TMPDIR"/stap*)/t_drv2.c ]]
    # errors in pass 2 leave nothing behind either
    rm -rf "${TMPDIR:?}"/*
    expect_error "<input>:1:7: semantic error" "unknown probe point" -p4 -r "$KVER" -e 'probe nope { }'
    [[ -z $(ls -A "$TMPDIR") ]]
    # options after the script are options (GNU order, as SystemTap): -c fills process.function's PATH;
    # after "--" everything is an argument
    printf 'probe begin { println(@1, " ", $#) }\n' >args.stp
    expect_ok -p1 args.stp -c ls foo
    grep -q 'println("foo", " ", 1)' stdout
    expect_ok -p1 args.stp -- -x
    grep -q 'println("-x", " ", 1)' stdout
    expect_ok -p2 -r "$KVER" -e 'probe process.plt("getenv") { }' -c ls
    grep -q '^process("/usr/bin/ls").plt("getenv")' stdout
    expect_error "<input>:1:7: semantic error" "process without a PATH: the program of -c 'ls | wc' cannot be told" \
        -p2 -r "$KVER" -e 'probe process.function("main") { }' -c 'ls | wc'
    # another kernel than the running one: pass 5 stops after pass 4 and says so
    "$STAP" -r "$KVER" -m t_other -e 'probe begin { exit() }' >stdout 2>stderr
    grep -q "is not the running kernel; stopping after pass 4" stderr
    [[ -f t_other.ko ]]
}
