# tapset man pages: every public alias and function in tapset/ has a doc comment, the generated probe::vfs.read page lists its variables, groff renders every page without a warning
# Used by tests/run (issue 15): scripts/gen-tapset-man.sh (run by make and make install).

# no ASan rerun: it tests shell scripts and runs no program of ours
asan_rerun=0

run() {
    local missing page f warn bad=0
    # every alias and function not starting with "_" is documented (generated files aside)
    missing=$("$TOP/scripts/gen-tapset-man.sh" --missing "$TOP/tapset")
    if [[ -n $missing ]]; then
        echo "tapset definitions without a /** probe|function NAME - ... */ doc comment:"
        echo "$missing"
        return 1
    fi
    # the generator itself: a small tapset with one of each, and one lacking a comment
    mkdir -p lib/linux
    cat >lib/linux/demo.stp <<'EOS'
// demo.stp - a demo tapset: probe demo.point
// and function demo_fn; used by this test.

/**
 * probe demo.point - the demo point fires
 * @alpha: the first value
 * @beta, @gamma: two more values,
 *   continued on a second line
 *
 * A free description .starting with a dot and a \backslash.
 */
probe demo.point = kprobe.function("vfs_read") { alpha = 1 beta = 2 gamma = 3 }

/**
 * function demo_fn - a demo function
 * @x: its argument
 */
function demo_fn:long(x:long,
		      y:string) { return x }

function demo_undocumented() { }
function __demo_internal() { }
probe demo.bare = kprobe.function("vfs_write") { }
EOS
    [[ $("$TOP/scripts/gen-tapset-man.sh" --missing lib) == "linux/demo.stp: function demo_undocumented"$'\n'"linux/demo.stp: probe demo.bare" ]]
    "$TOP/scripts/gen-tapset-man.sh" demo lib
    [[ $(cd demo && ls) == "function::demo_fn.3stap"$'\n'"probe::demo.point.3stap"$'\n'"tapset::demo.3stap" ]]
    MANWIDTH=80 man -l "demo/probe::demo.point.3stap" >demo.txt 2>demo.err
    [[ ! -s demo.err ]]
    grep -q '^       probe::demo.point - the demo point fires$' demo.txt
    grep -q '^       alpha  the first value$' demo.txt
    grep -q '^       beta, gamma$' demo.txt
    grep -q 'two more values, continued on a second line' demo.txt
    grep -q 'A free description .starting with a dot and a \\backslash.' demo.txt
    MANWIDTH=80 man -l "demo/function::demo_fn.3stap" >fn.txt
    grep -q '^       demo_fn:long(x:long, y:string)$' fn.txt
    MANWIDTH=80 man -l "demo/tapset::demo.3stap" >ts.txt
    [[ $(tr -s ' \n' '  ' <ts.txt) == *'tapset::demo - a demo tapset: probe demo.point and function demo_fn; used by this test.'* ]]
    # the real library: vfs.read's page names every variable the alias sets (stap -L lists them)
    "$TOP/scripts/gen-tapset-man.sh" man "$TOP/tapset"
    page="man/probe::vfs.read.3stap"
    MANWIDTH=80 man -l "$page" >vfs.txt
    for v in name file pos buf bytes_to_read dev devname ino argstr; do
        grep -q "^       $v  *[^ ]" vfs.txt || grep -q "^       $v\$" vfs.txt || { echo "vfs.read page lacks $v"; return 1; }
    done
    $STAP -r "$KVER" -L vfs.read 2>/dev/null | tr ' ' '\n' | sed -n 's/:.*//p' | sort >vars.L
    [[ -s vars.L ]]
    while read -r v; do
        grep -q "^       $v\\b" vfs.txt || { echo "vfs.read page lacks $v (stap -L lists it)"; return 1; }
    done <vars.L
    [[ -f "man/function::task_parent.3stap" && -f "man/tapset::vfs.3stap" && -f "man/function::cmdline_str.3stap" ]]
    # every page renders without a groff warning: all of them in one groff run with every
    # warning on (man --warnings -l per page gives a subset of these, for 650 processes)
    warn=$(groff -k -man -ww -z -Tutf8 man/*.3stap 2>&1)
    if [[ -n $warn ]]; then
        echo "$warn"
        bad=1
    fi
    return $bad
}
