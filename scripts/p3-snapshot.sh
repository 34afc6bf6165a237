#!/usr/bin/env bash
# p3-snapshot.sh - every script the tree (and, when present, SystemTap's examples) holds, through
# stap -p3: the generated C, stderr and exit status of each, to diff two builds (refactors: same output).
# usage: scripts/p3-snapshot.sh OUTDIR [STAP]   (then: diff -r OLD NEW). KVER: the target kernel.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: p3-snapshot.sh OUTDIR [STAP]}
stap=${2:-$TOP/build/bin/stap}
kver=${KVER:-$(ls /lib/modules | grep -v -- -rt | sort -V | head -n 1)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export stap kver out TOP
# the module name is fixed (-m) so that two runs compare; every script runs from its own directory
one() {
    local f=$1 name
    name=$(printf '%s' "${f#"$TOP"/}" | tr '/' '%')
    (cd "$(dirname "$f")" && timeout 120 "$stap" -r "$kver" -p3 -m p3snap "$f" >"$out/$name.c" 2>"$out/$name.err"
     echo $? >"$out/$name.rc") || true
    sed -i "s|$TOP/|TOP/|g" "$out/$name.c" "$out/$name.err"   # the tree's place is not the output's
}
export -f one
{
    find "$TOP/tests" "$TOP/examples" -name '*.stp'
    [[ -d /usr/share/systemtap/examples ]] && find /usr/share/systemtap/examples -name '*.stp'
    true
} | sort | xargs -P "$(nproc)" -I{} bash -c 'one "$@"' _ {}
echo "$(ls "$out"/*.rc | wc -l) scripts in $out"
