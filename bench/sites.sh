#!/usr/bin/env bash
# sites.sh - how long a run with about 1,900 kprobe sites (kernel.function("tcp_*"), one shared handler) takes to
# arm and to disarm in the guest, beside one probe's. Used by bench/run (bench/run sites); also runs alone.
#
# It runs the guest case guest/many-sites with MANY_SITES='tcp_*' (tests/guest/many-sites.t: staprun start to
# "every probe armed" (the -c command's first act) and the command's end to staprun's exit (unregistration and
# the end probe), in ms of guest time) and prints the case's "times" line. Under TCG, arming a kprobe costs tens
# of ms (each one patches kernel text, which makes QEMU retranslate); on hardware it is far less.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PART=sites
source "$TOP/bench/lib.sh"

say "guest/many-sites with MANY_SITES='tcp_*' (one guest boot, several minutes under TCG)"
MANY_SITES='tcp_*' TESTS_ASAN=0 "$TOP/tests/run" guest/many-sites >&2 || die "guest/many-sites failed"
echo "Many sites (guest, TCG, ms): $(cat "$TOP/build/tests/guest/many-sites/times")"
