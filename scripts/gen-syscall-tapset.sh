#!/bin/sh
# gen-syscall-tapset.sh - writes tapset/linux/x86_64/syscalls.stp, the syscall.NAME probe aliases,
# from a kernel's headers (syscall table + prototypes).  Run by hand when the target kernels change.
#
# Usage: scripts/gen-syscall-tapset.sh [-o FILE] [KVER|BUILDDIR]...
#   KVER       a kernel release whose build tree is /lib/modules/KVER/build
#   BUILDDIR   a kernel build tree (a configured source tree, or Debian's linux-headers-* tree)
#   Default: the guest kernel (scripts/guest-kver.sh).  With several trees, the aliases are the
#   union: a syscall takes its entry point and prototype from the first tree that has it.
#   -o FILE    output file (default: tapset/linux/x86_64/syscalls.stp next to this script)
#
# Per tree it reads, looking in the tree, then the tree its Makefile includes (Debian's -common
# part), then /lib/modules/KVER/source:
#   the syscall list: arch/x86/entry/syscalls/syscall_64.tbl, or else the generated
#     uapi/asm/unistd_64.h (numbers -> names) with asm/syscalls_64.h (numbers -> entry points),
#     or else every `asmlinkage long sys_NAME(` prototype;
#   the prototypes: include/linux/syscalls.h (+ arch/x86/include/asm/syscalls.h), #ifdef CONFIG_*
#     evaluated against include/generated/autoconf.h; the x86-only calls without a prototype
#     there (mmap, arch_prctl, ...) are listed below;
#   hand-written aliases: each alias of scripts/syscall-tapset-overrides.stp replaces the
#     generated one of the same name (syscall.NAME and syscall.NAME.return separately).
# Portable sh + POSIX awk (mawk is enough).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=$top/tapset/linux/x86_64/syscalls.stp
overrides=$here/syscall-tapset-overrides.stp

while getopts o: opt; do
    case $opt in
        o) out=$OPTARG ;;
        *) echo "usage: $0 [-o FILE] [KVER|BUILDDIR]..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$("$here/guest-kver.sh")"

die() { echo "gen-syscall-tapset: $*" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# roots BUILD KVER: the directories to look in for one tree.
roots() {
    echo "$1"
    inc=$(sed -n 's/^include[[:space:]]\{1,\}\(\/.*\)\/Makefile[[:space:]]*$/\1/p' "$1/Makefile" 2>/dev/null | head -n 1)
    [ -n "$inc" ] && echo "$inc"
    [ -n "$2" ] && [ -d "/lib/modules/$2/source" ] && echo "/lib/modules/$2/source"
    return 0
}

# find_in ROOTS_FILE PATH: the first ROOT/PATH that exists.
find_in() {
    while read -r r; do
        if [ -f "$r/$2" ]; then echo "$r/$2"; return 0; fi
    done <"$1"
    return 1
}

# ---- awk programs ----------------------------------------------------------------------

# prototypes: "sys_NAME|param, param" for each prototype in active #if regions (first wins).
# CONFIG_* conditions are evaluated with autoconf.h (first file); other conditions keep
# both branches.
cat >"$tmp/protos.awk" <<'EOF'
FNR == 1 { fileno++ }
# (the sys_* prototypes sit under #ifndef CONFIG_ARCH_HAS_SYSCALL_WRAPPER: they describe the
# calls all the same, so that option counts as unset)
fileno == 1 { if ($1 == "#define" && $2 ~ /^CONFIG_/ && $2 != "CONFIG_ARCH_HAS_SYSCALL_WRAPPER") conf[$2] = 1; next }
function active(   i) { for (i = 1; i <= depth; i++) if (!on[i]) return 0; return 1 }
function cond(expr,   name) {   # 1 true, 0 false, -1 unknown
    gsub(/[ \t]/, "", expr)
    if (expr ~ /^defined\(CONFIG_[A-Za-z0-9_]+\)$/ || expr ~ /^CONFIG_[A-Za-z0-9_]+$/) {
        name = expr; sub(/^defined\(/, "", name); sub(/\)$/, "", name)
        return (name in conf) ? 1 : 0
    }
    if (expr ~ /^!defined\(CONFIG_[A-Za-z0-9_]+\)$/) {
        name = expr; sub(/^!defined\(/, "", name); sub(/\)$/, "", name)
        return (name in conf) ? 0 : 1
    }
    return -1
}
function push(v) { depth++; known[depth] = (v >= 0); on[depth] = (v != 0); taken[depth] = (v == 1) }
/^[ \t]*#[ \t]*ifdef[ \t]/  { split($0, w, /[ \t]+/); n = w[2] ~ /^#/ ? w[3] : w[2]; push(n ~ /^CONFIG_/ ? ((n in conf) ? 1 : 0) : -1); next }
/^[ \t]*#[ \t]*ifndef[ \t]/ { split($0, w, /[ \t]+/); n = w[2] ~ /^#/ ? w[3] : w[2]; push(n ~ /^CONFIG_/ ? ((n in conf) ? 0 : 1) : -1); next }
/^[ \t]*#[ \t]*if[ \t(]/    { e = $0; sub(/^[ \t]*#[ \t]*if/, "", e); sub(/\/\*.*/, "", e); push(cond(e)); next }
/^[ \t]*#[ \t]*elif[ \t(]/  {
    e = $0; sub(/^[ \t]*#[ \t]*elif/, "", e); sub(/\/\*.*/, "", e)
    if (known[depth]) { v = taken[depth] ? 0 : cond(e); if (v < 0) known[depth] = 0; on[depth] = (v != 0); if (v == 1) taken[depth] = 1 }
    next
}
/^[ \t]*#[ \t]*else/  { if (known[depth]) on[depth] = !taken[depth]; next }
/^[ \t]*#[ \t]*endif/ { if (depth > 0) depth--; next }
/^asmlinkage[ \t]+long[ \t]+sys_[a-z0-9_]+[ \t]*\(/ || collecting {
    line = collecting ? line " " $0 : $0
    collecting = 1
    if (line !~ /;/) next
    collecting = 0
    if (!active()) next
    sub(/^asmlinkage[ \t]+long[ \t]+/, "", line)
    name = line; sub(/[ \t]*\(.*/, "", name)
    params = line; sub(/^[^(]*\(/, "", params); sub(/\)[^)]*;.*$/, "", params)
    gsub(/[ \t]+/, " ", params); sub(/^ /, "", params); sub(/ $/, "", params)
    if (!(name in seen)) { seen[name] = 1; print name "|" params }
}
EOF

# table from syscall_64.tbl: "NAME ENTRY" (64-bit and common ABI).
cat >"$tmp/tbl.awk" <<'EOF'
/^[ \t]*#/ || NF < 4 { next }
$2 == "common" || $2 == "64" { e = $4; sub(/^__x64_/, "", e); print $3, e, $1 }
EOF

# table from unistd_64.h + syscalls_64.h: "NAME ENTRY".
cat >"$tmp/unistd.awk" <<'EOF'
FNR == 1 { fileno++ }
fileno == 1 && $1 == "#define" && $2 ~ /^__NR_/ && $3 ~ /^[0-9]+$/ { n = $2; sub(/^__NR_/, "", n); name[$3] = n; next }
fileno == 2 && /^__SYSCALL/ {
    s = $0; sub(/^[A-Z_0-9]*\(/, "", s); gsub(/[ \t)]/, "", s)
    split(s, f, ","); e = f[2]; sub(/^__x64_/, "", e)
    if (f[1] in name) print name[f[1]], e, f[1]
}
EOF

# ---- the syscall list and prototypes of each tree ----------------------------------------

: >"$tmp/all"
: >"$tmp/protos"
desc=
for t in "$@"; do
    case $t in
        */*) build=$t; kver= ;;
        *) build=/lib/modules/$t/build; kver=$t ;;
    esac
    [ -d "$build" ] || die "no kernel build tree at $build"
    rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$build/include/generated/utsrelease.h" 2>/dev/null)
    upstream=$(cat "$build/include/config/kernel.release" 2>/dev/null || true)
    [ -n "$rel" ] || rel=${upstream:-${kver:-$build}}
    [ -n "$upstream" ] && [ "$upstream" != "$rel" ] && rel="$rel = Linux $upstream"
    roots "$build" "$kver" >"$tmp/roots"
    sysh=$(find_in "$tmp/roots" include/linux/syscalls.h) || die "$build: include/linux/syscalls.h not found"
    autoconf=$(find_in "$tmp/roots" include/generated/autoconf.h) || autoconf=/dev/null
    archh=$(find_in "$tmp/roots" arch/x86/include/asm/syscalls.h) || archh=/dev/null
    if tbl=$(find_in "$tmp/roots" arch/x86/entry/syscalls/syscall_64.tbl); then
        awk -f "$tmp/tbl.awk" "$tbl" >"$tmp/table"
        from="syscall_64.tbl"
    elif unistd=$(find_in "$tmp/roots" arch/x86/include/generated/uapi/asm/unistd_64.h) &&
         gen=$(find_in "$tmp/roots" arch/x86/include/generated/asm/syscalls_64.h); then
        awk -f "$tmp/unistd.awk" "$unistd" "$gen" >"$tmp/table"
        from="unistd_64.h + syscalls_64.h"
    else
        sed -n 's/^asmlinkage long sys_\([a-z0-9_]*\)(.*/\1 sys_\1/p' "$sysh" >"$tmp/table"
        from="syscalls.h prototypes"
    fi
    [ -s "$tmp/table" ] || die "$build: empty syscall table"
    # the configuration (x86_64 even without an autoconf.h), and the x86-only calls whose
    # prototypes are not in the headers
    {
        echo "#define CONFIG_X86_64 1"
        cat "$autoconf"
    } >"$tmp/autoconf"
    cat >"$tmp/arch-protos.h" <<'EOF'
asmlinkage long sys_mmap(unsigned long addr, unsigned long len, unsigned long prot, unsigned long flags, unsigned long fd, unsigned long off);
asmlinkage long sys_arch_prctl(int option, unsigned long arg2);
asmlinkage long sys_iopl(unsigned int level);
asmlinkage long sys_modify_ldt(int func, void __user *ptr, unsigned long bytecount);
asmlinkage long sys_rt_sigreturn(void);
EOF
    awk -f "$tmp/protos.awk" "$tmp/autoconf" "$sysh" "$archh" "$tmp/arch-protos.h" >>"$tmp/protos"
    cat "$tmp/table" >>"$tmp/all"
    desc="$desc
//   $rel ($from)"
done

# ---- generation --------------------------------------------------------------------------

cat >"$tmp/gen.awk" <<'EOF'
# Inputs: the overrides file, the prototypes ("sys_X|params"), the table ("NAME ENTRY").
FNR == 1 { fileno++ }

# overrides: blocks of "probe syscall.NAME..." lines; comments right before a probe go with it;
# the file's header (up to the first blank line) is skipped.
fileno == 1 {
    if (!ovstarted) { if ($0 ~ /^[ \t]*$/) ovstarted = 1; next }
    if ($0 ~ /^probe[ \t]+syscall\.[a-z0-9_]+/) {
        cur = $0; sub(/^probe[ \t]+syscall\./, "", cur); sub(/[^a-z0-9_.].*/, "", cur)
        ent = $0; sub(/^[^"]*"/, "", ent); sub(/".*/, "", ent); oventry[cur] = ent
        if (!(cur in ov)) ovorder[++novs] = cur
        ov[cur] = ov[cur] pending $0 "\n"; pending = ""; next
    }
    if ($0 ~ /^[ \t]*(#|\/\/)/ || $0 ~ /^[ \t]*$/) { pending = pending $0 "\n"; next }
    if (cur != "") { ov[cur] = ov[cur] pending $0 "\n"; pending = "" }
    next
}
fileno == 2 { i = index($0, "|"); n = substr($0, 1, i - 1); if (!(n in proto)) proto[n] = substr($0, i + 1); next }
fileno == 3 {
    # the number's name for syscall_any (the kernel's name: newfstatat, pread64), first tree wins
    if ($3 ~ /^[0-9]+$/ && !($3 in nrname)) { nrname[$3] = $1; if ($3 + 0 > maxnr) maxnr = $3 + 0 }
    if ($2 == "sys_ni_syscall" || $2 == "") next
    name = ($1 in rename) ? rename[$1] : $1
    if (name in done) next
    done[name] = 1
    nsys++
    if (name in ov || (name ".return") in ov) noverridden++
    generate(name, $2)
    next
}

BEGIN {
    # SystemTap's names for calls whose kernel names differ
    rename["newfstatat"] = "fstatat"; rename["pread64"] = "pread"
    rename["pwrite64"] = "pwrite"; rename["umount2"] = "umount"
    # return values shown in hex
    hexret["brk"] = 1; hexret["mmap"] = 1; hexret["mremap"] = 1; hexret["shmat"] = 1
    # variable names the aliases define themselves, and the language's keywords
    split("name argstr retval retstr probe global function if else for foreach in limit " \
          "return delete while break continue next string long try catch private", r, " ")
    for (i in r) reserved[r[i]] = 1
    # integer types: reader and printf conversion
    split("int pid_t clockid_t key_serial_t mqd_t timer_t rwf_t __kernel_rwf_t uid_t gid_t " \
          "key_t __s32 s32 int32_t", t, " ")
    for (i in t) itype[t[i]] = "int"
    split("unsigned_int unsigned u32 __u32 uint32_t qid_t old_sigset_t", t, " ")
    for (i in t) itype[t[i]] = "uint"
    split("umode_t mode_t unsigned_short old_uid_t old_gid_t u16 __u16", t, " ")
    for (i in t) itype[t[i]] = "ushort"
    split("long long_long ssize_t off_t loff_t s64 __s64 __kernel_old_time_t time_t " \
          "old_time32_t", t, " ")
    for (i in t) itype[t[i]] = "long"
    split("unsigned_long unsigned_long_long size_t u64 __u64 aio_context_t uint64_t", t, " ")
    for (i in t) itype[t[i]] = "ulong"
    split("cap_user_header_t cap_user_data_t __sighandler_t", t, " ")
    for (i in t) ptrtype[t[i]] = 1
    retdecl = "\t@param(\"$return\", returnval(), \"long\")\n"
    # names for the parameters the headers leave unnamed (SystemTap's where it has them)
    pnames["socket"] = "family type protocol"
    pnames["socketpair"] = "family type protocol sv"
    pnames["connect"] = "sockfd serv_addr addrlen"
    pnames["bind"] = "sockfd my_addr addrlen"
    pnames["accept"] = "sockfd addr addrlen"
    pnames["accept4"] = "sockfd addr addrlen flags"
    pnames["listen"] = "sockfd backlog"
    pnames["sendto"] = "s buf len flags to tolen"
    pnames["recvfrom"] = "s buf len flags addr addrlen"
    pnames["shutdown"] = "s how"
    pnames["getsockname"] = "s name namelen"
    pnames["getpeername"] = "s name namelen"
    pnames["rt_sigaction"] = "sig act oact sigsetsize"
    pnames["io_submit"] = "ctx_id nr iocbpp"
    pnames["pselect6"] = "n readfds writefds exceptfds timeout sigmask"
    pnames["ppoll"] = "fds nfds tsp sigmask sigsetsize"
}

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# generate(NAME, ENTRY): the entry and .return aliases of one syscall.
function generate(name, entry,   params, n, p, i, k, words, nw, pname, ptype, base, stars, kind,
                  body, fmt, args, v, f, isconst, key, given, decls, a, dfn, rdecls, sc) {
    body = "\tname = \"" name "\"\n"
    decls = ""
    rdecls = ""
    fmt = ""; args = ""
    params = (("sys_" entry) in proto) ? proto["sys_" entry] : ((entry in proto) ? proto[entry] : "?")
    if (params == "?") {
        params = ""
        nomissing++
        missing = missing " " name
    }
    if (params == "void") params = ""
    n = params == "" ? 0 : split(params, p, ",")
    if (n > 6) n = 6
    split((name in pnames) ? pnames[name] : "", given, " ")
    for (k = 1; k <= n; k++) {
        p[k] = trim(p[k])
        # the parameter name is the last word, unless the parameter is unnamed
        ptype = p[k]; gsub(/\*/, " * ", ptype); ptype = trim(ptype); gsub(/[ \t]+/, " ", ptype)
        nw = split(ptype, words, " ")
        pname = words[nw]
        if (nw < 2 || pname == "*" || pname ~ /^(int|long|short|char|unsigned|signed|void|__user|const)$/ ||
            pname ~ /_t$/ || pname in itype || pname ~ /^(u|s|__u|__s)(8|16|32|64)$/) {
            pname = (k in given) ? given[k] : "arg" k
        } else {
            ptype = ""
            for (i = 1; i < nw; i++) ptype = ptype (i > 1 ? " " : "") words[i]
        }
        stars = gsub(/\*/, "*", ptype)
        isconst = (ptype ~ /^const /)
        # the base type: the words other than qualifiers and pointers, joined by _
        nw = split(ptype, words, " ")
        base = ""
        for (i = 1; i <= nw; i++)
            if (words[i] !~ /^(const|__user|struct|union|enum|volatile|\*)$/)
                base = base (base == "" ? "" : "_") words[i]
        if (stars == 1 && base == "char" && ((isconst && pname !~ /^(u?buf|msg_ptr|optval)$/) ||
                                             pname ~ /^(dev_name|dir_name|type)$/)) {
            kind = "string"
        } else if (stars > 0 || base in ptrtype) {
            kind = "ptr"
        } else if (ptype ~ /^enum /) {
            kind = "int"
        } else if (base in itype) {
            kind = itype[base]
        } else {
            kind = "long"
            key = base
            if (!(key in unknown)) { unknown[key] = 1; unknownlist = unknownlist " " key }
        }
        # $pname: the raw argument as its C type says (@param: the translator binds $NAME to it)
        sc = "__sc_" ((kind == "string" || kind == "ptr") ? "long" : kind) "(" k ")"
        decls = decls "\t@param(\"$" pname "\", " sc ", \"" ptype "\")\n"
        # in .return: its value at entry (the kretprobe saves it when the body uses it)
        rdecls = rdecls "\t@param(\"$" pname "\", @entry(" sc "), \"" ptype "\")\n"
        # SystemTap shows file descriptors as signed ints
        if ((kind == "uint" || kind == "ulong") && pname ~ /fd$/) kind = "int"
        if (kind == "string") {
            # a string argument called name: name_uaddr and name_str (name is the syscall's)
            v = (pname == "name") ? "name_str" : pname
            body = body "\t" pname "_uaddr = __sc_long(" k ")\n"
            body = body "\t" v " = user_string_quoted(" pname "_uaddr)\n"
            f = "%s"
        } else if (kind == "ptr") {
            v = pname "_uaddr"
            body = body "\t" v " = __sc_long(" k ")\n"
            f = "%p"
        } else {
            v = (pname in reserved) ? pname "_arg" : pname
            body = body "\t" v " = __sc_" kind "(" k ")\n"
            if (pname ~ /mode$/ && (base == "umode_t" || base == "mode_t")) f = "%#o"
            else if (pname ~ /flags$/) f = "0x%x"
            else if (kind == "ulong" && pname ~ /(^|_)addr$|^(start|brk|newsp)$/) f = "%p"
            else if (kind == "uint" || kind == "ulong" || kind == "ushort") f = "%u"
            else f = "%d"
        }
        a = v
        if (kind != "string" && kind != "ptr" && (dfn = decoder(name, pname)) != "") {
            f = "%s"; a = dfn "(" v ")"
        }
        fmt = fmt (k > 1 ? ", " : "") f
        args = args ", " a
    }
    if (n == 0)
        body = body "\targstr = \"\"\n"
    else
        body = body "\targstr = sprintf(\"" fmt "\"" args ")\n"
    if (!override(name, entry, decls))
        printf "probe syscall.%s = kprobe.function(\"__x64_%s\") ?\n{\n%s%s}\n", name, entry, decls, body
    if (!override(name ".return", entry, rdecls retdecl)) {
        printf "probe syscall.%s.return = kprobe.function(\"__x64_%s\").return ?\n{\n%s", name, entry, rdecls retdecl
        printf "\tname = \"%s\"\n\tretval = returnval()\n\tretstr = returnstr(%d)\n}\n", name, (name in hexret) ? 2 : 1
    }
    # the same probes under SystemTap's no-debuginfo names (these need no DWARF either)
    printf "probe nd_syscall.%s = syscall.%s {}\nprobe nd_syscall.%s.return = syscall.%s.return {}\n", name, name, name, name
    print ""
}

# decoder(NAME, PARAM): the aux_syscalls.stp function argstr shows integer PARAM of syscall NAME
# with ("" for a plain number), as SystemTap's argstr does.
function decoder(name, pname) {
    if (pname ~ /^(dfd|olddfd|newdfd)$/) return "_dfd_str"
    if (pname == "sig" && name != "rseq") return "_signal_name"   # (rseq's sig is a signature)
    if (pname == "which_clock") return "_get_wc_str"
    if (name == "lseek" && pname == "whence") return "_seek_whence_str"
    if ((name == "mmap" || name == "mprotect" || name == "pkey_mprotect") && pname == "prot") return "_mprotect_prot_str"
    if (name == "mmap" && pname == "flags") return "_mmap_flags"
    if ((name == "wait4" || name == "waitid") && pname == "options") return "_wait4_opt_str"
    if ((name == "socket" || name == "socketpair") && pname == "family") return "_sock_family_str"
    if ((name == "socket" || name == "socketpair") && pname == "type") return "_sock_type_str"
    if ((name == "access" || name == "faccessat" || name == "faccessat2") && pname == "mode") return "_access_mode_str"
    if (name == "fcntl" && pname == "cmd") return "_fcntl_cmd_str"
    return ""
}

# any_probes(): syscall_name() from the numbers of the table, and the syscall_any probes.
function any_probes(   i, len) {
    len = 0
    for (i = 0; i <= maxnr; i++)
        if (i in nrname && length(nrname[i]) > len) len = length(nrname[i])
    print "/**"
    print " * function syscall_name - the name of x86_64 system call number nr (\"syscall_NR\" if unknown)"
    print " * @nr: the number (raw_syscalls tracepoints' id, pt_regs orig_ax)"
    print " */"
    print "function syscall_name:string(nr:long) %{ /* pure */ /* bpf */"
    print "\t/* the names in place, not pointers to them: a BPF object's data holds no relocated pointers */"
    printf "\tstatic const char names[][%d] = {\n", len + 1
    for (i = 0; i <= maxnr; i++)
        if (i in nrname) printf "\t\t[%d] = \"%s\",\n", i, nrname[i]
    print "\t};"
    print "\tif (STAP_ARG_nr >= 0 && STAP_ARG_nr < (int64_t)ARRAY_SIZE(names) && names[STAP_ARG_nr][0])"
    print "\t\tstp_strlcpy(STAP_RETVALUE, names[STAP_ARG_nr], MAXSTRINGLEN);"
    print "\telse"
    print "\t\tsnprintf(STAP_RETVALUE, MAXSTRINGLEN, \"syscall_%lld\", (long long)STAP_ARG_nr);"
    print "%}"
    print ""
    print "/**"
    print " * probe syscall_any - entry into any system call (the raw_syscalls:sys_enter tracepoint)"
    print " * @name: the call's name (the kernel's: newfstatat, pread64)"
    print " * @syscall_nr: its number"
    print " */"
    print "probe syscall_any = kernel.trace(\"raw_syscalls:sys_enter\")"
    print "{"
    print "\tsyscall_nr = $id"
    print "\tname = syscall_name(syscall_nr)"
    print "}"
    print ""
    print "/**"
    print " * probe syscall_any.return - exit from any system call (the raw_syscalls:sys_exit tracepoint)"
    print " * @name: the call's name"
    print " * @syscall_nr: its number"
    print " * @retval: the value it returns"
    print " */"
    print "probe syscall_any.return = kernel.trace(\"raw_syscalls:sys_exit\")"
    print "{"
    print "\tsyscall_nr = $regs->orig_ax"
    print "\tname = syscall_name(syscall_nr)"
    print "\tretval = $ret"
    print "}"
}

# override(ALIAS, ENTRY, DECLS): prints the hand-written ALIAS if there is one, with the generated
# @param declarations DECLS at the top of its body.
function override(alias, entry, decls,   text, i) {
    if (!(alias in ov))
        return 0
    if (oventry[alias] !~ ("^__x64_" entry "(\"|$)"))
        print "gen-syscall-tapset: override syscall." alias " probes " oventry[alias] ", the table says __x64_" entry > "/dev/stderr"
    text = ov[alias]
    sub(/^\n+/, "", text)
    if (decls != "") {
        i = index(text, "\n{\n")
        if (i) text = substr(text, 1, i + 2) decls substr(text, i + 3)
    }
    printf "%s", text
    used[alias] = 1
    return 1
}

END {
    any_probes()
    for (i = 1; i <= novs; i++)
        if (!(ovorder[i] in used)) print "gen-syscall-tapset: override syscall." ovorder[i] " matches no syscall of the table" > "/dev/stderr"
    if (unknownlist != "") print "gen-syscall-tapset: types read as long:" unknownlist > "/dev/stderr"
    if (missing != "") print "gen-syscall-tapset: no prototype (no arguments shown):" missing > "/dev/stderr"
    printf "%d %d\n", nsys, noverridden > "/dev/stderr"
}
EOF

{
    cat <<EOF
// syscalls.stp - the syscall.NAME and syscall.NAME.return probe aliases for x86_64; GENERATED:
// do not edit (change scripts/gen-syscall-tapset.sh or scripts/syscall-tapset-overrides.stp).
//
// From the headers of (the first that has a syscall gives its alias):$desc
// Regenerate: scripts/gen-syscall-tapset.sh $*
//
// Each alias probes the syscall's __x64_sys_* entry point (optional: missing ones are skipped)
// and sets name, argstr and one variable per argument, read from the user's registers
// (__sc_* of registers.stp); X_uaddr for pointers, X (quoted string) and X_uaddr for
// path and name strings.  The .return aliases set name, retval and retstr.

EOF
    awk -f "$tmp/gen.awk" "$overrides" "$tmp/protos" "$tmp/all" 2>"$tmp/log"
} >"$tmp/out"
counts=$(tail -n 1 "$tmp/log")
sed '$d' "$tmp/log" >&2
mkdir -p "$(dirname "$out")"
mv "$tmp/out" "$out"
set -- $counts
echo "gen-syscall-tapset: $out: $1 syscalls ($2 hand-written), $(wc -c <"$out") bytes" >&2
