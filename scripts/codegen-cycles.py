#!/usr/bin/env python3
"""codegen-cycles.py DIR [EXTRA.c ...] - call graph between the files of a C folder: which file's
functions call which other file's (non-static) functions; prints the strongly connected
components of more than one file, every simple call cycle through more than two files (exit 1
when there is one), and the longest function of each file.
Definitions: a line at column 0 'TYPE name(' not ending in ';'. Calls: 'name(' in code, comments
and strings stripped."""
import re, sys, os, glob

def strip(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    return text

files = sorted(glob.glob(os.path.join(sys.argv[1], '*.c'))) + sys.argv[2:]
src = {f: strip(open(f).read()) for f in files}
defs, static, longest = {}, set(), {}
defre = re.compile(r'^(?!static\b)(?:[A-Za-z_][\w\s\*]*?[\s\*])(\w+)\s*\([^;]*$', re.M)
for f, t in src.items():
    lines = t.split('\n')
    for i, l in enumerate(lines):
        m = re.match(r'^(static\s+)?(?:inline\s+)?(?:const\s+)?[A-Za-z_][\w]*[\s\*]+(\w+)\s*\(', l)
        if m and not l.rstrip().endswith(';') and not l.startswith(('typedef', 'return', 'else')):
            name = m.group(2)
            # length: up to the next line that is exactly '}'
            j = i
            while j < len(lines) and lines[j] != '}':
                j += 1
            n = j - i + 1
            if n > longest.get(f, ('', 0))[1]:
                longest[f] = (name, n)
            if m.group(1):
                continue
            defs[name] = f
edges = {f: set() for f in files}
for f, t in src.items():
    for name in set(re.findall(r'\b(\w+)\s*\(', t)):
        g = defs.get(name)
        if g and g != f:
            edges[f].add((g, name))
graph = {f: {g for g, _ in e} for f, e in edges.items()}
# Tarjan
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        comps.append(c)
sys.setrecursionlimit(10000)
for v in files:
    if v not in index:
        visit(v)
for c in comps:
    if len(c) > 1:
        print('strongly connected: %d files: %s' % (len(c), ' '.join(sorted(os.path.basename(x) for x in c))))
        for f in sorted(c):
            for g, name in sorted(edges[f]):
                if g in c:
                    print('   %s -> %s (%s)' % (os.path.basename(f), os.path.basename(g), name))
# simple cycles: from each start node, paths through nodes ordered after it only
order = {f: i for i, f in enumerate(files)}
cycles = []
def walk(start, v, path):
    for w in graph[v]:
        if w == start:
            cycles.append(list(path))
        elif order[w] > order[start] and w not in path:
            path.append(w); walk(start, w, path); path.pop()
for f in files:
    walk(f, f, [f])
long_cycles = [c for c in cycles if len(c) > 2]
for c in long_cycles:
    print('cycle through %d files: %s' % (len(c), ' -> '.join(os.path.basename(x) for x in c + [c[0]])))
print('simple call cycles: %d, the longest through %d files; through more than two: %d'
      % (len(cycles), max((len(c) for c in cycles), default=0), len(long_cycles)))
for f in files:
    n, l = longest.get(f, ('-', 0))
    print('longest %-28s %-28s %d lines' % (os.path.basename(f), n, l))
sys.exit(1 if long_cycles else 0)
