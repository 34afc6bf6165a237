# The tree's shape (issue 32) kept by a test: codegen/ calls through no cycle of more than two files
# (scripts/codegen-cycles.py), only pass 1 sees grammar tokens, no function over 100 lines, the leaves
# (dwarf/, btf/, lib/) include no providers/ header, lib/diag.c keeps no run's state in a static. Used by tests/run.
asan_rerun=0

run() {
    local here=$PWD
    cd "$TOP"
    # codegen/: files generating one kind of expression call back only through expr.c
    python3 scripts/codegen-cycles.py translator/codegen >"$here/cycles.out" ||
        { cat "$here/cycles.out"; return 1; }
    grep -q 'through more than two: 0$' "$here/cycles.out"
    # the generated parser.h (bison's token numbers) only inside translator/parse/
    local leak
    leak=$(grep -rl '#include "parser.h"' translator | grep -v '^translator/parse/' || true)
    [[ -z $leak ]] || { echo "parser.h included outside translator/parse/: $leak"; return 1; }
    # dwarf/, btf/ and lib/ are leaves that providers/ use, never the reverse
    leak=$(grep -rn '#include "providers/' translator/dwarf translator/btf translator/lib || true)
    [[ -z $leak ]] || { echo "a leaf includes a providers/ header: $leak"; return 1; }
    # diagnostics go to the Diag each caller passes: no file-scope mutable static in lib/diag.c (a
    # declaration at column 0 without a parenthesis, unless the object itself is const)
    local statics
    statics=$(grep -nE '^static [^(]*(;|=|\{)' translator/lib/diag.c | grep -vE '^[0-9]+:static const [^*]*(;|=)|\*const ' || true)
    [[ -z $statics ]] || { echo "file-scope mutable static in translator/lib/diag.c: $statics"; return 1; }
    # no function over 100 lines in the programs' sources (runtime tables of cases excepted: errnames.h)
    local long
    long=$(for f in $(git ls-files 'translator/*.c' 'translator/*.y' 'staprun/*.c' 'stapio/*.c' 'common/*.c' \
                                'stap-merge/*.c' 'app-trace-report/*.c' 'runtime/*.c' 'runtime/*.h' | grep -v errnames.h); do
        awk -v F="$f" '/^[a-zA-Z].*\(/ { name = $0 } /^\{/ { start = NR; n = name }
                       /^\}/ && start { if (NR - start > 100) print F ": " NR - start " lines: " substr(n, 1, 60); start = 0 }' "$f"
    done)
    [[ -z $long ]] || { echo "$long"; return 1; }
}
