# =~ and !~: the pattern compiler and the matcher against glibc (tests/unit/regex-driver.c, built
# here, with the sanitizers for the asan run; glibc's answers from tests/unit/regex-oracle.c, plain), bad
# patterns located in pass 2, programs in pass 3.
# Used by tests/run (regular expressions).

run() {
    source "$TOP/tests/lib/assert.sh"
    local -a san=()
    [[ $STAP == */asan/* ]] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g "${san[@]}" -iquote "$TOP/translator" \
        "$TOP/tests/unit/regex-driver.c" "$TOP/translator/lib/regex.c" "$TOP/translator/lib/rxdfa.c" "$TOP/translator/lib/rxclosure.c" "$TOP/translator/lib/diag.c" \
        "$TOP/translator/lib/util.c" -o driver
    # glibc's side, plain (tests/unit/regex-oracle.c): one process answers every pair, no fork of the driver a pair
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 "$TOP/tests/unit/regex-oracle.c" -o oracle
    # 1000 random patterns, each against 6 subjects
    REGEX_ORACLE=$PWD/oracle ./driver 1000 >driver.out || { cat driver.out; return 1; }
    tail -n 1 driver.out
    # pass 2: a bad pattern is a located error at its character (after the script's own escapes)
    expect_error "<input>:1:36: semantic error" "regex compilation error (at position 3): expected ')', found end of regex" \
        -p2 -e 'probe begin { println("abc" =~ "a(b") }'
    expect_error "<input>:1:37: semantic error" "regex compilation error (at position 4): inverted character range b-a" \
        -p2 -e 'probe begin { println("abc" !~ "x**[b-a]") }'
    expect_error "<input>:1:38: semantic error" "regex compilation error (at position 2): expected ')'" \
        -p2 -e 'probe begin { println("abc" =~ "\x41(") }'
    expect_error "<input>:1:31: semantic error" "regex compilation error (at position 1): unbalanced ')'" \
        -p2 -e 'function f(s) { return s =~ "a)" } probe begin { println(f("a")) }'
    expect_error "<input>:1:35: semantic error" "regex compilation error (at position 2): 256 is too large" \
        -p2 -e 'probe begin { println("abc" =~ "a{256}") }'
    expect_error "<input>:1:37: semantic error" "regex compilation error (at position 6): regular expression too large" \
        -p2 -e 'probe begin { println("a" =~ "a{255}b{255}") }'
    # every bad pattern is reported
    "$STAP" -p2 -e 'probe begin { println("a" =~ "(", "b" =~ "[", "c" =~ "c") }' 2>stderr && return 1
    [[ $(grep -c 'regex compilation error' stderr) == 2 ]]
    # matched() and ngroups() are builtins
    expect_ok -p2 -e 'probe begin { if ("a" =~ "(a)") println(matched(1), ngroups()) }'
    # pass 3: a pattern used twice is emitted once, the work area is sized for the largest program
    expect_ok -p3 -r "$KVER" -e 'function f(s) { return s =~ "^([a-z]+)=(.*)$" }
        probe begin { println(f("a=b"), "x" =~ "^([a-z]+)=(.*)$", "y" !~ "[[:digit:]]") }'
    [[ $(grep -c '^static const struct stp_re_prog ' stdout) == 2 ]]
    grep -q '^#define STP_REGEX_MAXSUB 3$' stdout
    grep -q '^#define STP_REGEX_MAXINSNS 15$' stdout
    # a match is never elided: it sets what matched() returns
    expect_ok -p3 -r "$KVER" -e 'probe begin { "abc" =~ "(b)"; x = "abc" =~ "(c)"; println(matched(1)) }'
    [[ $(grep -c 'stp_regex_match(c, ' stdout) == 2 ]]
    # a module without =~ has no regex program and the smallest work area
    expect_ok -p3 -r "$KVER" -e 'probe begin { println(1) }'
    not grep -q STP_REGEX_MAX stdout
}
