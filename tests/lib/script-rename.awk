# script-rename.awk - a script's globals renamed PREFIX NAME, so that scripts sharing one module (script-groups.sh)
# keep their globals apart. Used by tests/lib/script-groups.sh: awk -v prefix=P -f script-rename.awk FILE FILE.
#
# The first reading collects the names declared on `global` lines (each item's first word, outside brackets);
# the second prints the script with each of those words renamed, outside strings and comments and not after
# @, $ or -> (@count, $var, a member; "." is only concatenation). A script whose output names a global (the
# end-of-run display, an error message) cannot be renamed: script-groups.sh leaves those out.
function tokens(line, rename,    out, i, c, n, id, prev, depth) {
    out = ""; i = 1; n = length(line); prev = ""
    while (i <= n) {
        c = substr(line, i, 1)
        if (incomment) {
            if (substr(line, i, 2) == "*/") { incomment = 0; out = out "*/"; i += 2 } else { out = out c; i++ }
            continue
        }
        if (c == "\"") {
            out = out c; i++
            while (i <= n) {
                c = substr(line, i, 1)
                if (c == "\\") { out = out substr(line, i, 2); i += 2; continue }
                out = out c; i++
                if (c == "\"") break
            }
            prev = "\""; continue
        }
        if (c == "#" || substr(line, i, 2) == "//") { out = out substr(line, i); break }
        if (substr(line, i, 2) == "/*") { incomment = 1; out = out "/*"; i += 2; continue }
        if (c ~ /[A-Za-z_]/) {
            id = c; i++
            while (i <= n && substr(line, i, 1) ~ /[A-Za-z0-9_]/) { id = id substr(line, i, 1); i++ }
            if (!rename && decl && (prev == "global" || prev == ",") && depth == 0) names[id] = 1
            else if (rename && (id in names) && prev != "@" && prev != "$" && prev != "->")
                id = prefix id
            out = out id
            if (prev == "" && id == "global") decl = 1
            prev = id; continue
        }
        if (c == "[" || c == "(") depth++
        if (c == "]" || c == ")") depth--
        if (substr(line, i, 2) == "->") { out = out "->"; prev = "->"; i += 2; continue }
        out = out c; i++
        if (c !~ /[ \t]/) prev = c
    }
    decl = 0
    return out
}
FNR == 1 { pass++ }
pass == 1 { tokens($0, 0); next }
{ print tokens($0, 1) }
