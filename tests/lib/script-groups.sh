# script-groups.sh - language-only script cases (tests/runtime/*.stp) share a module: groups of them, each
# member's probes guarded by the global rt_sel, built once. Sourced by tests/run (script_cases, script-case.sh).
# shellcheck shell=bash
#
# Every module costs its build (~3 s of CPU, most of it the runtime compiled again); a group of up to
# RT_GROUP_MAX scripts costs one. A run of the group's module with rt_sel=K executes member K alone: each
# probe of every member starts with `if (rt_sel != K) next`, so the others' probes return at once and print
# nothing. Each case still runs (and compares) its own script in its own staprun; a group that does not
# build falls back to each case building its script alone (script-case.sh), so no member's failure hides
# another's. A member (script_groupable) has what makes the shared module run it exactly as its own would:
#   - no directives (#! stap:, staprun:, rc:, workload:, sed:, timeout:) and no NAME.err (no error, whose
#     message would name the group's file and lines);
#   - probes `probe begin {` and `probe end {` only, one a line; no embedded C, @define, $1/@1, module_name()
#     or private;
#   - globals only if the script reads each of them (a global never read is printed at the end: a member's
#     would show in every run; the translator says, script_displays), declared one line each, and no word
#     like rtN_: in the group, member K's globals are renamed rtK_NAME (script-rename.awk), so that no other
#     member's global or local of the same name is the same variable (no error message can name them: .err);
#   - functions whose names no other member of its group uses.

RT_GROUP_MAX=12

# script_groupable FILE: may FILE (tests/runtime/NAME.stp) share a module? Sets SCRIPT_FNS to " F G ... ", the
# names of the functions it defines, and SCRIPT_GLOBALS to 1 when it declares globals. Bash alone (no program
# started for each of the scripts) but for script_displays.
script_groupable() {
    local f=$1 line rest re_probe='^[[:space:]]*probe[[:space:]]' re_ok='^[[:space:]]*probe (begin|end) \{'
    local re_fn='^[[:space:]]*function[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)'
    SCRIPT_FNS=" " SCRIPT_GLOBALS=0
    [[ ! -e ${f%.stp}.err ]] || return 1
    while IFS= read -r line || [[ -n $line ]]; do
        [[ $line =~ $re_fn ]] && SCRIPT_FNS+="${BASH_REMATCH[1]} "
        [[ $line == '#! '* || $line == *'%{'* || $line == *'@define'* || $line == *module_name* ||
           $line == *'$1'* || $line == *'@1'* || $line == *rt_sel* || $line =~ rt[0-9]+_ ]] && return 1
        [[ $line =~ ^[[:space:]]*private[[:space:]] ]] && return 1
        if [[ $line =~ ^[[:space:]]*global[[:space:]](.*)$ ]]; then
            # one line each (script-rename.awk reads a declaration line by line)
            rest=${BASH_REMATCH[1]%%#*} rest=${rest%%//*}
            [[ $rest =~ ,[[:space:]]*$ ]] && return 1
            SCRIPT_GLOBALS=1
        fi
        if [[ $line =~ $re_probe ]]; then
            [[ $line =~ $re_ok ]] || return 1
        fi
    done <"$f"
    (( ! SCRIPT_GLOBALS )) || ! script_displays "$f"
}

# script_displays FILE: would FILE's module print globals at the end (one it never reads), or is there no
# translator to ask (no KVER: no guest either)? Its pass 3 says: the C then has stp_display_globals.
script_displays() {
    local c
    [[ -n ${KVER:-} ]] || return 0
    c=$("$TOP/build/bin/stap" -r "$KVER" -p3 "$1" 2>/dev/null) || return 0
    [[ $c == *stp_display_globals* ]]
}

# script_clashes N: does a function of the script script_groupable just read have the name of one of group N's?
script_clashes() {
    local w
    for w in $SCRIPT_FNS; do [[ ${names[$1]:-} == *" $w "* ]] && return 0; done
    return 1
}

# script_groups DIR SCRIPT...: writes DIR/rt_gN.stp for the groups of the groupable SCRIPTs (in the order
# given: every script of tests/runtime, so that a group is the same whichever cases a run selects) and prints
# "NAME N K" for each member (NAME.stp is member K of group N). Scripts whose function names clash with a
# group's go to the next group with room and no clash.
script_groups() {
    local dir=$1 f g name n k line SCRIPT_FNS SCRIPT_GLOBALS
    shift
    local -a size=() names=() files=()
    for f in "$@"; do
        script_groupable "$f" || continue
        for (( n = 0; ; n++ )); do
            (( ${size[n]:-0} < RT_GROUP_MAX )) || continue
            script_clashes "$n" || break
        done
        size[n]=$(( ${size[n]:-0} + 1 ))
        names[n]="${names[n]:- }${SCRIPT_FNS# }"
        files[n]+="$SCRIPT_GLOBALS $f"$'\n'
    done
    for n in "${!size[@]}"; do
        k=0
        {
            echo "# rt_g$n: tests/runtime scripts sharing one module (tests/lib/script-groups.sh); rt_sel picks the one a run executes"
            echo "global rt_sel"
            while read -r g f; do
                [[ -n $f ]] || continue
                k=$((k + 1))
                name=${f##*/} name=${name%.stp}
                echo "# ---- $k: $name.stp"
                while IFS= read -r line || [[ -n $line ]]; do
                    if [[ $line =~ ^([[:space:]]*probe (begin|end) \{)(.*)$ ]]; then
                        line="${BASH_REMATCH[1]} if (rt_sel != $k) next;${BASH_REMATCH[3]}"
                    fi
                    printf '%s\n' "$line"
                done < <(if (( g )); then awk -v prefix="rt${k}_" -f "$TOP/tests/lib/script-rename.awk" "$f" "$f"; else cat "$f"; fi)
                echo "$name $n $k" >&3
            done <<<"${files[n]}"
        } 3>&1 >"$dir/rt_g$n.stp.tmp"
        cmp -s "$dir/rt_g$n.stp.tmp" "$dir/rt_g$n.stp" 2>/dev/null && rm -f "$dir/rt_g$n.stp.tmp" ||
            mv "$dir/rt_g$n.stp.tmp" "$dir/rt_g$n.stp"
    done
}
