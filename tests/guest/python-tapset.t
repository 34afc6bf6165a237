# python-tapset: tapset/python.stp on Debian's python3 (its own SDT markers): python.function.entry/.return (and python3.*) counted by function and line, Python-to-Python calls and calls from C alike; python.line, python.gc.start/.done (collected checked against gc.collect()), python.import.start/.done (found and not), python.audit
# Used by tests/run (issue 17, Python probes).

timeout_s=300

PY=/usr/bin/python3

build() {
    [[ -x $PY ]] && readelf -n "$(readlink -f $PY)" | grep -q 'Name: function__entry' ||
        { echo "no $PY with SDT markers"; exit 77; }
    # line numbers matter: see check()
    cat >work.py <<'PYEOF'
import gc, sys
def f(x):
    return x * 2
def g(x):
    return -x
def h():
    return 1
gc.disable()
sys.audit("pytap.begin")
r = list(map(f, range(7)))
s = sorted(range(5), key=g)
for i in range(3):
    h()
junk = []
for i in range(10):
    l = []
    l.append(l)
    junk.append(l)
del junk, l
n = gc.collect(0)
import colorsys
try:
    import pytap_no_such_module
except ImportError:
    pass
sys.audit("pytap.end", 1)
print("collected", n, sum(r), s)
PYEOF
    # calls of work.py's functions, by name and line, at entry and at return
    $STAP -p4 -m t_pyfunc -e '
global ent, ret
probe python.function.entry { if (pid() == target() && filename == @1) ent[funcname, lineno]++ }
probe python.function.return { if (pid() == target() && filename == @1) ret[funcname, lineno]++ }
probe end {
  foreach ([f, l] in ent+) printf("entry %s %d %d\n", f, l, ent[f, l])
  foreach ([f, l] in ret+) printf("return %s %d %d\n", f, l, ret[f, l])
}' "$CASE_DIR/work.py" >/dev/null
    # the same through the python3.* names, and with python.line armed too
    $STAP -p4 -m t_pyline -e '
global ent, lines
probe python3.function.entry { if (pid() == target() && filename == @1) ent[funcname]++ }
probe python.line { if (pid() == target() && filename == @1 && funcname != "<module>") lines[funcname, lineno]++ }
probe end {
  foreach (f+ in ent) printf("entry %s %d\n", f, ent[f])
  foreach ([f, l] in lines+) printf("line %s %d %d\n", f, l, lines[f, l])
}' "$CASE_DIR/work.py" >/dev/null
    # gc, imports, audit events: within the window of the audit events pytap.begin and pytap.end
    $STAP -p4 -m t_pyevents -e '
global win
probe python.audit {
  if (pid() == target() && substr(event, 0, 6) == "pytap.") {
    win = event == "pytap.begin"
    printf("audit %s %d\n", event, args != 0)
  }
}
probe python.gc.start { if (pid() == target() && win) printf("gc.start %d\n", generation) }
probe python.gc.done { if (pid() == target() && win) printf("gc.done %d\n", collected) }
probe python.import.start { if (pid() == target() && win) printf("import.start %s\n", modulename) }
probe python.import.done { if (pid() == target() && win) printf("import.done %s %d\n", modulename, found) }
' >/dev/null
}

guest() {
    local i
    for i in 1 2; do
        staprun -c "$PY $CASE_DIR/work.py" t_pyfunc.ko >func$i.out 2>func$i.err
    done
    staprun -c "$PY $CASE_DIR/work.py" t_pyline.ko >line.out 2>line.err
    staprun -c "$PY $CASE_DIR/work.py" t_pyevents.ko >events.out 2>events.err
}

check() {
    local i
    [[ $(cat rc) == 0 ]]
    # work.py: f (line 2, returns at 3) called 7 times from map(), g (4, 5) 5 times from sorted(), h (6, 7)
    # 3 times straight from Python code; the module (entry line 0) returns at its last line, 27
    for i in 1 2; do
        grep -qx 'collected 10 42 \[4, 3, 2, 1, 0\]' func$i.out
        [[ $(grep -v '^collected' func$i.out | sort) == "entry <module> 0 1
entry f 2 7
entry g 4 5
entry h 6 3
return <module> 27 1
return f 3 7
return g 5 5
return h 7 3" ]]
        only_skip_warnings func$i.err
    done
    [[ $(grep -v '^collected' line.out | sort) == "entry <module> 1
entry f 7
entry g 5
entry h 3
line f 3 7
line g 5 5
line h 7 3" ]]
    only_skip_warnings line.err
    # gc.collect(0) freed the 10 self-referencing lists (Python's own count printed too); colorsys
    # imported (found), the missing module not
    grep -qx 'collected 10 42 \[4, 3, 2, 1, 0\]' events.out
    [[ $(grep -v '^collected' events.out) == "audit pytap.begin 1
gc.start 0
gc.done 10
import.start colorsys
import.done colorsys 1
import.start pytap_no_such_module
import.done pytap_no_such_module 0
audit pytap.end 1" ]]
    only_skip_warnings events.err
}
