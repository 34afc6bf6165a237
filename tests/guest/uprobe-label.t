# uprobe-label: process("PATH").function("F").label("NAME"): uprobes at a user function's DWARF labels (a glob), each hit as the code passes it with the function's variables; a missing label is an error
# Used by tests/run (issue 31): translator/providers/labels.c, providers/uprobe.c.

build() {
    cat >ul.c <<'EOF2'
/* work(v): label "odd" for odd v, then label "done" always */
int work(int v)
{
	int t = v * 10;

	if (!(v & 1))
		goto done;
odd:
	t += 1;
	if (t < 0)
		goto odd;
done:
	return t;
}

int main(void)
{
	return work(3) + work(4) == 71 ? 0 : 1;
}
EOF2
    gcc -g -O0 -o ul ul.c
    $STAP -p4 -m t_ulabel -e 'probe process("./ul").function("work").label("*") { printf("%s v=%d t=%d\n", pp(), $v, $t) }' >/dev/null
    not $STAP -p2 -e 'probe process("./ul").function("work").label("nope") { }' >/dev/null 2>nolabel.err
    grep -q "^<input>:1:32: semantic error: 'work' has no label 'nope' with code in $CASE_DIR/ul\$" nolabel.err
}

guest() {
    staprun -c ./ul t_ulabel.ko
}

check() {
    [[ $(cat rc) == 0 ]] || { cat err; return 1; }
    local f="process(\"$CASE_DIR/ul\").function(\"work@$CASE_DIR/ul.c:2\")"
    printf '%s\n' "$f.label(\"odd\") v=3 t=30" "$f.label(\"done\") v=3 t=31" "$f.label(\"done\") v=4 t=40" | diff - out
    [[ ! -s err ]]
}
