# case-helpers.sh - helpers available to every test case function (run, build, guest, check).
# Sourced by tests/lib/cases.sh (host side) and by each generated guest-run script (guest side).

# not CMD [ARG...]: succeeds when CMD fails, fails when CMD succeeds. Use it instead of `! CMD`:
# case functions run under `set -e`, and bash never stops on a `! CMD` line (unless it is the
# function's last command), so `! CMD` asserts nothing.
not() { ! "$@"; }
