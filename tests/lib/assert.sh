# assert.sh - bash helpers for unit cases: run stap and check its exit status and messages.
# Sourced by tests/unit/*.t (run() functions); each helper prints what it saw when it fails.

# expect_error WHERE MESSAGE ARGS...: `stap ARGS` must exit 1 and its first stderr line must be
# "WHERE: MESSAGE..." (WHERE like "<input>:1:15: parse error"), followed by the source line and a
# caret line, and nothing on stdout.
expect_error() {
    local where=$1 message=$2 rc=0
    shift 2
    "$STAP" "$@" >stdout 2>stderr || rc=$?
    if [[ $rc != 1 ]]; then
        echo "expected exit 1, got $rc from stap $*"; cat stderr; return 1
    fi
    if [[ -s stdout ]]; then
        echo "unexpected stdout:"; cat stdout; return 1
    fi
    local first
    first=$(head -n 1 stderr)
    if [[ $first != "$where: $message"* ]]; then
        echo "expected: $where: $message"; echo "got:      $first"; return 1
    fi
    if [[ $where == *:*:*:* ]] && ! sed -n 3p stderr | grep -q '^ *^$'; then
        echo "no caret line under the source line:"; cat stderr; return 1
    fi
}

# expect_plain_error MESSAGE ARGS...: one line "stap: error: MESSAGE...", exit 1.
expect_plain_error() {
    local message=$1 rc=0
    shift
    "$STAP" "$@" >stdout 2>stderr || rc=$?
    if [[ $rc != 1 || $(head -n 1 stderr) != "stap: error: $message"* || $(wc -l <stderr) != 1 ]]; then
        echo "expected exit 1 and one line 'stap: error: $message...', got exit $rc:"; cat stderr; return 1
    fi
}

# expect_ok ARGS...: stap must succeed; its stdout is left in ./stdout.
expect_ok() {
    if ! "$STAP" "$@" >stdout 2>stderr; then
        echo "stap $* failed:"; cat stderr; return 1
    fi
}
