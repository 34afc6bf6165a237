# The tree's shape (issues 32, 47) kept by a test: codegen/ calls through no cycle of more than two files
# (scripts/codegen-cycles.py), only pass 1 sees grammar tokens, no function over 100 lines, the leaves
# (dwarf/, btf/, lib/) include no providers/ header, dwarf/ and btf/ include nothing of each other (and the
# floor under them, image/, neither), codegen/ includes neither and names no DWARF type, nor does kmodule/,
# the lowering (codegen/) writes none of the module's C (kmodule/ does, through CgBackend), targets/ headers
# name none either, a printf format is parsed once and its flags defined once, lib/diag.c keeps no run's
# state in a static, no two translator sources share a file name, none is over 1,200 lines. Used by tests/run.
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
    # the two leaves of target variables share only the floor under them (image/: ELF, build ids, unpacking,
    # module files, the tracepoint catalog): neither includes the other, the floor includes neither
    leak=$(grep -rn '#include "btf/' translator/dwarf || true; grep -rn '#include "dwarf/' translator/btf || true)
    [[ -z $leak ]] || { echo "dwarf/ and btf/ include each other: $leak"; return 1; }
    leak=$(grep -rnE '#include "(dwarf|btf|targets|providers|codegen)/' translator/image || true)
    [[ -z $leak ]] || { echo "the floor (image/) includes what stands on it: $leak"; return 1; }
    # pass 3 reads the records of targets/, never a leaf: codegen/ includes neither dwarf/ nor btf/
    leak=$(grep -rnE '#include "(dwarf|btf)/' translator/codegen || true)
    [[ -z $leak ]] || { echo "codegen/ includes a leaf: $leak"; return 1; }
    # ... and names no DWARF type (libdw's Dwarf_*, DW_*); nor does the module's writer, which reads user
    # binaries' line tables through dwarf/lines.h, the one dwarf/ header it includes
    leak=$(grep -nE '\bDwarf_[A-Za-z]+|\bDW_[A-Z]|<dwarf\.h>|<elfutils/' translator/codegen/*.[ch] translator/kmodule/*.[ch] || true)
    [[ -z $leak ]] || { echo "pass 3 names a DWARF type: $leak"; return 1; }
    leak=$(grep -nE '#include "(dwarf|btf)/' translator/kmodule/*.[ch] | grep -v '#include "dwarf/lines\.h"' || true)
    [[ -z $leak ]] || { echo "kmodule/ includes a leaf: $leak"; return 1; }
    # the two writers are siblings: neither includes the other, the BPF one no leaf at all
    leak=$(grep -n '#include "kmodule/' translator/bpfprog/*.[ch] || true; grep -n '#include "bpfprog/' translator/kmodule/*.[ch] || true
           grep -nE '#include "(dwarf|btf)/' translator/bpfprog/*.[ch] || true)
    [[ -z $leak ]] || { echo "a runtime writer includes its sibling or a leaf: $leak"; return 1; }
    # pass 3 in two halves: codegen/ lowers statements and expressions for any runtime, a runtime's writer
    # (kmodule/: the kernel module) writes its own C around them through codegen/backend.h's CgBackend.
    # The lowering includes no writer's header (translate.c, which picks the writer, excepted) and writes
    # none of the module's own C: its per-CPU data, parameters, modinfo, locks, map set-up, descriptors,
    # light-path marks, includes
    leak=$(grep -nE '#include "(kmodule|bpfprog)/' translator/codegen/*.[ch] | grep -v '^translator/codegen/translate\.c:' || true)
    [[ -z $leak ]] || { echo "the lowering includes a runtime writer's header: $leak"; return 1; }
    leak=$(grep -nE 'DEFINE_PER_CPU|this_cpu_|module_param|MODULE_INFO\(|stp_rwlock|stp_lock_req|stp_(p?map|stat)_new|stp_descs|STP_LIGHT_OK|"#include' \
               translator/codegen/*.c || true)
    [[ -z $leak ]] || { echo "the lowering writes the module's own C: $leak"; return 1; }
    # targets/ has words of its own: its headers include no leaf and name no DWARF or libdw type (the DWARF
    # leaf's file is an opaque struct TgLeafFile), nor does the floor under the leaves
    leak=$(grep -nE '#include "(dwarf|btf)/|<dwarf\.h>|<elfutils/|<libdw|\bDwarf_[A-Za-z]+|\bDW_[A-Z]|\bDwAccess\b|\bEX_DWARF\b|\bDwarfModule\b' \
               translator/targets/*.h translator/image/*.[ch] || true)
    [[ -z $leak ]] || { echo "a targets/ header names DWARF: $leak"; return 1; }
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
    # a file's name says what it is: no two translator sources of one name (module.c and module.h are two)
    local twins
    twins=$(git ls-files 'translator/*' | sed 's|.*/||' | sort | uniq -d)
    [[ -z $twins ]] || { echo "translator sources sharing a name: $twins"; return 1; }
    # a printf format is parsed once (resolution keeps it in Expr.format), its flags numbered once (fmtflags.h)
    local parses
    parses=$(grep -rn 'format_parse(' translator --include=*.c | grep -v '^translator/lib/format\.c:' || true)
    [[ $(printf '%s\n' "$parses" | grep -c .) == 1 ]] || { echo "format_parse called other than once: $parses"; return 1; }
    leak=$(grep -rnE '#define STP_FMT_(LEFT|PLUS|SPACE|ALT|ZERO)\b' runtime translator | grep -v '^runtime/output/fmtflags\.h:' || true)
    [[ -z $leak ]] || { echo "printf flags defined twice: $leak"; return 1; }
    # no translator source over 1,200 lines
    local big
    big=$(git ls-files 'translator/*.c' 'translator/*.h' 'translator/*.y' 'translator/*.l' | xargs wc -l |
          awk '$2 != "total" && $1 > 1200 { print $2 ": " $1 " lines" }')
    [[ -z $big ]] || { echo "$big"; return 1; }
}
