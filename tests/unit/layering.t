# The tree's shape (issue 32) kept by a test: codegen/ calls through no cycle of more than two files
# (scripts/codegen-cycles.py), only pass 1 sees grammar tokens, no function over 100 lines. Used by tests/run.
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
    # no function over 100 lines in the programs' sources (runtime tables of cases excepted: errnames.h)
    local long
    long=$(for f in $(git ls-files 'translator/*.c' 'translator/*.y' 'staprun/*.c' 'stapio/*.c' 'common/*.c' \
                                'stap-merge/*.c' 'app-trace-report/*.c' 'runtime/*.c' 'runtime/*.h' | grep -v errnames.h); do
        awk -v F="$f" '/^[a-zA-Z].*\(/ { name = $0 } /^\{/ { start = NR; n = name }
                       /^\}/ && start { if (NR - start > 100) print F ": " NR - start " lines: " substr(n, 1, 60); start = 0 }' "$f"
    done)
    [[ -z $long ]] || { echo "$long"; return 1; }
}
