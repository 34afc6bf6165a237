# generated C maps back to the script: "/* probe POINT at FILE:LINE:COL */" above each handler, "/* function NAME at ... */" above each function (NAME/ARITY for overloads), MAXACTION charges as STP_ACTIONS
# Used by tests/run (issue 19): translator/codegen/bodies.c (cg_probe_comment, cg_function_comment), codegen/emit.c cg_charge_actions, codegen/callgraph.c, runtime/core/probe.c STP_ACTIONS.

# A script of our own: an alias, a glob holding "*/" (which must not end the comment), a probe
# of two points on two lines, one of two points sharing a body, an alias wildcard, a function.
MINE='global n
function twice(x) { return 2 * x }
probe vfs.read { n += twice(1) }
probe kernel.function("vfs_rea*@*/read_write.c").call ?,
      kernel.function("vfs_write") { n++ }
probe kprobe.function("ksys_read"), kprobe.function("ksys_write") { n-- }
probe syscall.openat* { printf("%s %d\n", execname(), pid()) }
probe timer.s(1) { if (n > 5) exit() }'

# unescape TEXT: a comment's text back to the script's ("*\/" -> "*/", "/\*" -> "/*")
unescape() { sed -e 's|\*\\/|*/|g' -e 's|/\\\*|/*|g' <<<"$1"; }

# src FILE: a comment's file as a path here (tapset/... is the tapset directory)
src() { case $1 in tapset/*) echo "$TOP/$1" ;; *) echo "$1" ;; esac; }

# statement SCRIPT LINE: the script's text from LINE to the line that opens the body
statement() { awk -v l="$2" 'NR >= l { print; if (index($0, "{")) exit }' "$1"; }

# comments C: every comment line naming a probe or function holds no other "/*" or "*/"
comments_safe() {
    local bad
    bad=$(grep -E '^/\* (probe|function) ' "$1" | sed -e 's|^/\* ||' -e 's| \*/$||' | grep -F -e '*/' -e '/*' || true)
    [[ -z $bad ]] || { echo "a comment ends or nests early in $1:"; echo "$bad"; return 1; }
}

# handlers C: each probe handler has the comment above it, whose location is the line and column
# of a probe statement of the script that names each point the comment gives (for an alias chain,
# the point the script wrote); writes "probe_N<tab>LINE<tab>POINTS" per handler to C.handlers
handlers() {
    local c=$1 n=0 id prev line re point file lno col rest pts
    re='^/\* probe (.*) at ([^ ]+):([0-9]+):([0-9]+)( = .*)? \*/$'
    : >"$c.handlers"
    prev=
    while IFS= read -r line; do
        if [[ $line =~ ^static\ void\ probe_([0-9]+)\(struct\ stp_context\ \*c\)$ ]]; then
            n=$((n + 1)) id=${BASH_REMATCH[1]}
            [[ $prev =~ $re ]] || { echo "no probe comment above: $line (above: $prev)"; return 1; }
            pts=${BASH_REMATCH[1]} file=${BASH_REMATCH[2]} lno=${BASH_REMATCH[3]} col=${BASH_REMATCH[4]}
            rest=$(sed -n "${lno}p" "$file" | cut -c"$col"-)
            [[ $rest == probe\ * ]] || { echo "$file:$lno:$col is no probe statement: $rest"; return 1; }
            [[ $pts == *" <- "* ]] && pts=${pts##* <- }   # an alias chain: the point the script wrote
            pts=$(unescape "$pts")
            # each point (the list splits at "), " or between plain names) is in that statement
            while IFS= read -r point; do
                statement "$file" "$lno" | grep -qF -- "$point" ||
                    { echo "'$point' is not in the probe at $file:$lno"; return 1; }
            done < <(sed -E 's/(\)[a-z.]*), /\1\n/g' <<<"$pts")
            printf 'probe_%s\t%s\t%s\n' "$id" "$lno" "$pts" >>"$c.handlers"
        fi
        prev=$line
    done <"$c"
    ((n > 0)) || { echo "no handlers in $c"; return 1; }
}

# functions C: each script or tapset function's C function has "function NAME at FILE:LINE:COL"
# above it, and there the script or tapset says "function NAME"
functions() {
    local c=$1 prev= line name re file lno col
    while IFS= read -r line; do
        if [[ $line =~ ^static\ void\ fn_([A-Za-z0-9_]+)\(struct\ stp_context\ \*c,\ struct\ frame_fn_[A-Za-z0-9_]+\ \*f\)$ ]]; then
            name=${BASH_REMATCH[1]}
            re="^/\\* function $name at ([^ ]+):([0-9]+):([0-9]+) \\*/\$"
            [[ $prev =~ $re ]] || { echo "no function comment above fn_$name (above: $prev)"; return 1; }
            file=$(src "${BASH_REMATCH[1]}") lno=${BASH_REMATCH[2]} col=${BASH_REMATCH[3]}
            sed -n "${lno}p" "$file" | cut -c"$col"- | grep -qE "^$name[[:space:]]*[(:]" ||
                { echo "fn_$name: $file:$lno:$col does not define it"; return 1; }
            # the line before the name says "function"
            sed -n "${lno}p" "$file" | grep -qE "function[[:space:]]+$name\\b" ||
                { echo "fn_$name: no 'function $name' at $file:$lno"; return 1; }
        fi
        prev=$line
    done <"$c"
}

# handler_at C LINE POINT: some handler's comment gives script line LINE and names POINT
handler_at() {
    awk -F'\t' -v l="$2" '$2 == l { print $3 }' "$1.handlers" | grep -qF -- "$3" ||
        { echo "no handler of '$3' at line $2 in $1:"; cat "$1.handlers"; return 1; }
}

# line_of FILE TEXT: the number of the script line holding TEXT (exactly one)
line_of() {
    local n
    n=$(grep -nF -- "$2" "$1" | cut -d: -f1)
    [[ $n =~ ^[0-9]+$ ]] || { echo "'$2' not on exactly one line of $1: $n" >&2; return 1; }
    echo "$n"
}

run() {
    local demo=$TOP/examples/demo.stp l

    # the demo: every handler and the point and line it comes from
    cp "$demo" demo.stp
    "$STAP" -p3 -r "$KVER" demo.stp >demo.c 2>err || { cat err; return 1; }
    comments_safe demo.c
    handlers demo.c
    functions demo.c
    [[ $(wc -l <demo.c.handlers) -eq 5 ]] || { cat demo.c.handlers; return 1; }
    for p in begin 'kprobe.function("ksys_read")' 'kprobe.function("ksys_write")' 'timer.s(1)' end; do
        l=$(line_of demo.stp "probe $p ")
        handler_at demo.c "$l" "$p"
    done
    # the comment is the line right above the handler: probe_1 is ksys_read's
    grep -B1 '^static void probe_1(struct stp_context \*c)$' demo.c |
        grep -qxF "/* probe kprobe.function(\"ksys_read\") at demo.stp:$(line_of demo.stp ksys_read):1 */"

    # MAXACTION: one STP_ACTIONS line per charge, naming the statement; nothing inline.  A
    # loop-free body charges through STP_ACTIONS_UNLESS, none at all when the sum of its actions
    # (4: 3 statements, and exit() in the if) is within the limits; a loop's body always charges
    not grep -q 'actioncount' demo.c
    l=$(line_of demo.stp 'ticks++')
    n=$(grep -B1 -A3 'STP_ACTIONS_UNLESS(STP_UNCOUNTED_probe_[0-9]*, 3, '"\"identifier 'ticks' at demo.stp:$l:5\", out);" demo.c |
        sed -n 's/.*STP_UNCOUNTED_probe_\([0-9]*\),.*/\1/p' | head -1)
    [[ -n $n ]]
    grep -qxF "#define STP_UNCOUNTED_probe_$n STP_ACTIONS_WITHIN(4)" demo.c
    l=$(line_of demo.stp 'foreach (name in reads)')
    grep -qxF "		STP_ACTIONS(1, \"keyword at demo.stp:$l:5\", out);" demo.c

    # our script
    printf '%s\n' "$MINE" >mine.stp
    "$STAP" -p3 -r "$KVER" mine.stp >mine.c 2>err || { cat err; return 1; }
    comments_safe mine.c
    handlers mine.c
    functions mine.c
    # the glob holding "*/" is in its comment, escaped: the comment goes on to its location; the
    # probe's second point, on the next line, runs the same code, so its sites share the handler
    # and its comment names both points, the probe statement's line and what they resolved to
    l=$(line_of mine.stp 'vfs_rea*@*/read_write.c')
    grep -qE "^/\\* probe kernel\\.function\\(\"vfs_rea\\*@\\*\\\\/read_write\\.c\"\\)\\.call, kernel\\.function\\(\"vfs_write\"\\) at mine\\.stp:$l:1 = kernel\\.function\\(\"vfs_read@fs/read_write\\.c:[0-9]+\"\\)\\.call, .*kernel\\.function\\(\"vfs_write@fs/read_write\\.c:[0-9]+\"\\) \\*/\$" mine.c ||
        { grep '^/\* probe' mine.c; return 1; }
    handler_at mine.c "$l" 'kernel.function("vfs_rea*@*/read_write.c").call'
    handler_at mine.c "$l" 'kernel.function("vfs_write")'
    # the alias, with the point it resolved to
    l=$(line_of mine.stp 'probe vfs.read')
    grep -qE "^/\\* probe vfs\\.read at mine\\.stp:$l:1 = kernel\\.function\\(\"vfs_read@fs/read_write\\.c:[0-9]+\"\\) \\*/\$" mine.c
    # two points sharing one body: both named
    l=$(line_of mine.stp 'ksys_write')
    grep -qxF "/* probe kprobe.function(\"ksys_read\"), kprobe.function(\"ksys_write\") at mine.stp:$l:1 */" mine.c
    # an alias wildcard: the alias it matched, from the point written
    l=$(line_of mine.stp 'syscall.openat*')
    grep -qE "^/\\* probe syscall\\.openat <- syscall\\.openat\\* at mine\\.stp:$l:1 = kprobe\\.function\\(\"__x64_sys_openat\"\\) \\*/\$" mine.c
    # the script's function and a tapset function (the tapset file relative to the tapset directory)
    l=$(line_of mine.stp 'function twice')
    grep -qxF "/* function twice at mine.stp:$l:10 */" mine.c
    grep -qE '^/\* function __file_inode at tapset/linux/vfs\.stp:[0-9]+:10 \*/$' mine.c
    # overloads of one name (by number of arguments): distinct C functions, the arity in the comment
    "$STAP" -p3 -r "$KVER" -e 'function ov(a) { return a } function ov(a, b) { return a + b } probe begin { println(ov(1), ov(1, 2)); exit() }' >ov.c 2>err ||
        { cat err; return 1; }
    grep -A1 -xF '/* function ov/1 at <input>:1:10 */' ov.c | grep -qxF 'static __always_inline void fn_ov__a1(struct stp_context *c, struct frame_fn_ov__a1 *f)'
    grep -A1 -xF '/* function ov/2 at <input>:1:38 */' ov.c | grep -qxF 'static __always_inline void fn_ov__a2(struct stp_context *c, struct frame_fn_ov__a2 *f)'

    # a probe the translator adds (the display of globals written, never read) says so
    "$STAP" -p3 -r "$KVER" -e 'global x; probe begin { x = 1; exit() }' >disp.c 2>err || { cat err; return 1; }
    grep -B1 '^static void probe_0(struct stp_context \*c)$' disp.c | grep -qxF '/* probe begin at <input>:1:11 */'
    grep -B1 '^static void probe_1(struct stp_context \*c)$' disp.c | grep -qxF '/* probe end, generated by the translator */'

    # a function called from one place is inlined there, one called from two is not; one called once
    # from a loop-free probe charges no actions when its caller charges none (the same macro); the
    # probe's bound counts each call: its 2 actions, once's 1, twice's 1 twice
    "$STAP" -p3 -r "$KVER" -e 'function once(a) { return a + 1 } function twice(a) { return a * 2 } probe begin { println(once(1), twice(2), twice(3)); exit() }' >once.c 2>err ||
        { cat err; return 1; }
    grep -qxF 'static __always_inline void fn_once(struct stp_context *c, struct frame_fn_once *f);' once.c
    grep -qxF 'static void fn_twice(struct stp_context *c, struct frame_fn_twice *f);' once.c
    grep -qxF '#define STP_UNCOUNTED_fn_once STP_UNCOUNTED_probe_0' once.c
    grep -qxF '#define STP_UNCOUNTED_probe_0 STP_ACTIONS_WITHIN(5)' once.c
    grep -q 'STP_ACTIONS_UNLESS(STP_UNCOUNTED_fn_once, 1, ' once.c
    grep -A3 '^static void fn_twice(struct' once.c | grep -q '^	STP_ACTIONS(1, '

    # the module builds: no comment ended early, STP_ACTIONS and STP_ACTIONS_UNLESS compile
    "$STAP" -p4 -r "$KVER" -m t_cmap mine.stp >/dev/null 2>err || { cat err; return 1; }
    [[ -f t_cmap.ko ]]
}
