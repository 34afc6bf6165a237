# pass 4's recorded kbuild steps: recorded by the first build for a kernel, then run directly (well under the full kbuild's CPU time) giving the same module code on every installed kernel; a damaged, failing or untrusted entry falls back to kbuild in full
# Used by tests/run (issue 19: pass 4's time).  translator/compile/kbuild_steps.c.

timeout_s=900
cost_s=60

# cpu_ms CMD...: runs CMD (stdout, stderr to ./out, ./err) and prints its and its children's CPU ms
cpu_ms() {
    local TIMEFORMAT='%3U %3S' t
    t=$( { time "$@" >out 2>err; } 2>&1 )
    awk '{ printf "%d\n", ($1 + $2) * 1000 }' <<<"$t"
}

# code KO: the module without debug information and build id (they name the temp directory), without .BTF
# (6.12 runs pahole, whose output was seen to differ between two builds of one module) and without local
# symbols (NAME.mod.c compiled without <linux/module.h> names its .modinfo strings otherwise)
code() { objcopy --strip-debug --remove-section=.note.gnu.build-id --remove-section=.BTF --discard-all "$1" "$1.code"; }

run() {
    export TMPDIR=$PWD/tmp SYSTEMTAP_DIR=$PWD/sd
    mkdir -p "$TMPDIR"
    local k kvers entry full_ms steps_ms script='probe kernel.function("vfs_read") { println($count) }'

    # the first build for this kernel records; the entry names no temp directory
    $STAP -r "$KVER" -p4 -vv -e 'probe begin { println("first") }' >out 2>err
    grep -q "^Pass 4: kbuild's steps recorded in $SYSTEMTAP_DIR/cache/kbuild/[0-9a-f]*\.steps$" err
    entry=$(echo sd/cache/kbuild/*.steps)
    [[ -f $entry ]]
    # ... and the layout of struct module in the NAME.mod.o kbuild compiled (size, alignment, name, init, exit)
    local modc=${entry%.steps}.modc
    grep -Eqx 'stap mod\.c layout 1 [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+' "$modc"
    grep -qa '@STAP_TMP_DIR@' "$entry"
    not grep -qa "$TMPDIR/stap" "$entry"
    # kbuild's nm loads the kernel compiler's LTO plugin only (plain nm loads all of bfd-plugins, LLVMgold and
    # libLLVM among them: 0.1 s a run, twice a module); an NM of the user's own stands
    local cc plugin
    cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ ]*\) .*/\1/p' "/lib/modules/$KVER/build/include/config/auto.conf")
    plugin=$("$cc" -print-file-name=liblto_plugin.so)
    [[ $plugin == /* ]]
    # (in each step's environment; grep -c reads to the end: -q would stop at the first and tr, under pipefail,
    # would fail with SIGPIPE)
    (( $(tr '\0' '\n' <"$entry" | grep -cx "e:NM=${cc%gcc*}nm --plugin=$plugin") > 0 ))
    mkdir -p ownnm/sd/cache
    cp -p sd/cache/kfeatures-* ownnm/sd/cache/
    (cd ownnm && SYSTEMTAP_DIR=$PWD/sd NM=nm $STAP -r "$KVER" -p4 -vv -e 'probe begin { println("own nm") }' >out 2>err)
    grep -q "^Pass 4: kbuild's steps recorded in " ownnm/err
    not grep -qa -- "--plugin" ownnm/sd/cache/kbuild/*.steps

    # another script: the steps run, for well under the CPU time of kbuild in full (a fresh cache but for
    # the kernel feature tests' answers, which are not what is timed; STAP_KBUILD_STEPS=0), and the module's
    # code is the same
    mkdir -p full/sd/cache steps
    cp -p sd/cache/kfeatures-* full/sd/cache/
    full_ms=$(cd full && SYSTEMTAP_DIR=$PWD/sd STAP_KBUILD_STEPS=0 cpu_ms $STAP -r "$KVER" -p4 -vv -m eqv -e "$script")
    not grep -q "kbuild's" full/err
    steps_ms=$(cd steps && cpu_ms $STAP -r "$KVER" -p4 -vv -m eqv -e "$script")
    grep -q "^Pass 4: ran kbuild's recorded steps ($SYSTEMTAP_DIR/cache/kbuild/" steps/err
    # the steps compile NAME.mod.c with a prelude of that layout instead of <linux/module.h>: the same module
    grep -qx "Pass 4: eqv.mod.c compiled without <linux/module.h> ($SYSTEMTAP_DIR/${modc#sd/})" steps/err
    echo "CPU ms for pass 1-4 of one kernel.function probe: full kbuild $full_ms, recorded steps $steps_ms"
    (( steps_ms * 100 < full_ms * 85 ))
    code full/eqv.ko
    code steps/eqv.ko
    cmp full/eqv.ko.code steps/eqv.ko.code
    # a prelude the compiler refuses (an alignment past what it can emit, as a struct module it does not know
    # would be): NAME.mod.c compiled as modpost wrote it, the same module; the tree's entry says "none" and
    # the next build does not try
    local good
    good=$(cat "$modc")
    echo 'stap mod.c layout 1 536870912 536870912 24 312 848' >"$modc"
    find sd/cache -name '*.ko' -delete
    mkdir -p wrong && (cd wrong && $STAP -r "$KVER" -p4 -vv -m eqv -e "$script" >out 2>err)
    grep -qx "Pass 4: eqv.mod.c without <linux/module.h> failed: compiled as modpost wrote it" wrong/err
    code wrong/eqv.ko
    cmp full/eqv.ko.code wrong/eqv.ko.code
    grep -qx 'stap mod.c layout 1 none' "$modc"
    $STAP -r "$KVER" -p4 -vv -e 'probe begin { println("after none") }' >out 2>err
    not grep -q "mod.c.*linux/module.h" err
    echo "$good" >"$modc"

    # an error in the module's C (embedded C here): reported once, kbuild is not run again in full
    not $STAP -r "$KVER" -p4 -vv -g -e '%{ int broken = ; %} probe begin { }' >out 2>err
    grep -q "^Pass 4: ran kbuild's recorded steps (.*): the compiler found errors in the module's C$" err
    grep -q "error: expected expression before" err
    not grep -q "running kbuild in full" err

    # a damaged entry: kbuild in full, which records it again
    printf 'stap kbuild steps 2\0STEP\0garbage\0' >"$entry"
    $STAP -r "$KVER" -p4 -vv -e 'probe begin { println("damaged") }' >out 2>err
    grep -q "^Pass 4: kbuild's recorded steps failed: running kbuild in full$" err
    grep -q "^Pass 4: kbuild's steps recorded in " err
    $STAP -r "$KVER" -p4 -vv -e 'probe begin { println("repaired") }' >out 2>err
    grep -q "^Pass 4: ran kbuild's recorded steps" err

    # a step that fails (its directory is gone): kbuild in full, the module built
    sed -z -i 's|^d:/.*|d:/nonexistent-kbuild-dir|' "$entry"
    grep -qa 'd:/nonexistent-kbuild-dir' "$entry"
    $STAP -r "$KVER" -p4 -vv -e 'probe begin { println("gone") }' >out 2>err
    grep -q "^Pass 4: kbuild's recorded steps failed: running kbuild in full$" err
    [[ -s $(tail -n 1 out) ]]

    # an entry others could have written is not run
    chmod 666 "$entry"
    $STAP -r "$KVER" -p4 -vv -e 'probe begin { println("untrusted") }' >out 2>err
    grep -q "warning: cache entry $SYSTEMTAP_DIR/cache/kbuild/.* writable by .*: not used" err
    not grep -q "ran kbuild's recorded steps" err
    chmod 644 "$entry"

    # --disable-cache and STAP_KBUILD_STEPS=0: kbuild in full, nothing recorded
    $STAP -r "$KVER" -p4 -vv --disable-cache -e 'probe begin { println("nocache") }' >out 2>err
    not grep -q "kbuild's" err

    # every other installed kernel: recorded, then the same code from the steps as from kbuild (in the
    # plain run: three kbuilds a kernel, of which the ASan rerun would check no more of our code)
    [[ $STAP == */asan/* ]] && return 0
    mapfile -t kvers < <("$TOP/scripts/guest-kver.sh" --all 2>/dev/null)
    for k in "${kvers[@]}"; do
        [[ $k == "$KVER" ]] && continue
        mkdir -p "k-$k/full" "k-$k/steps"
        (cd "k-$k" && $STAP -r "$k" -p4 -e 'probe begin { println("warm") }' >/dev/null 2>&1)
        (cd "k-$k/full" && SYSTEMTAP_DIR=$PWD/sd STAP_KBUILD_STEPS=0 $STAP -r "$k" -p4 -m eqv -e "$script" >out 2>err)
        (cd "k-$k/steps" && $STAP -r "$k" -p4 -vv -m eqv -e "$script" >out 2>err)
        grep -q "^Pass 4: ran kbuild's recorded steps" "k-$k/steps/err"
        grep -q "^Pass 4: eqv.mod.c compiled without <linux/module.h> " "k-$k/steps/err"
        code "k-$k/full/eqv.ko"
        code "k-$k/steps/eqv.ko"
        cmp "k-$k/full/eqv.ko.code" "k-$k/steps/eqv.ko.code"
        echo "$k: the same code from the recorded steps"
    done
}
