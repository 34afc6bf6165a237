# Makefile - builds stap, staprun, stapio and stap-merge into build/bin, runs the tests, installs.
# Used by developers, CI (.ci/run -> make check) and packagers (make install).

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(PREFIX)/bin
DATADIR  = $(PREFIX)/share/systemtap
LIBEXEC  = $(PREFIX)/libexec/systemtap
MANDIR   = $(PREFIX)/share/man
UNITDIR  = $(PREFIX)/lib/systemd/system

CC      ?= cc
B        = build
CSTD     = -std=c11 -D_GNU_SOURCE
WARN     = -Wall -Wextra -Werror
OPT     ?= -O2 -g
SAN      =
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) $(SAN) -Itranslator -I$(B)/gen -Iruntime/transport -Iruntime $(CFLAGS)
LDFLAGS_ALL = $(SAN) $(LDFLAGS)
STAP_LIBS   = -ldw -lelf -llzma -lzstd -lz -pthread

TRANSLATOR_SRC = $(sort $(shell find translator -name '*.c'))
TRANSLATOR_GEN = $(B)/gen/lexer.c $(B)/gen/parser.c
TRANSLATOR_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(TRANSLATOR_SRC)) $(B)/obj/gen/lexer.o $(B)/obj/gen/parser.o $(B)/obj/common/outopen.o
STAPRUN_OBJ    = $(patsubst %.c,$(B)/obj/%.o,$(wildcard staprun/*.c)) $(B)/obj/common/log.o $(B)/obj/common/modparam.o \
                 $(B)/obj/common/fileline.o
STAPIO_OBJ     = $(patsubst %.c,$(B)/obj/%.o,$(wildcard stapio/*.c)) $(B)/obj/common/log.o $(B)/obj/common/modparam.o \
                 $(B)/obj/common/outopen.o $(B)/obj/common/fileline.o
MERGE_OBJ      = $(patsubst %.c,$(B)/obj/%.o,$(wildcard stap-merge/*.c))
ATR_OBJ        = $(patsubst %.c,$(B)/obj/%.o,$(wildcard app-trace-report/*.c))

NPROC   := $(shell nproc 2>/dev/null || echo 2)

# Every object depends on a file holding the flags it was built with, rewritten when they change, so
# that changing OPT, SAN, CFLAGS or LDFLAGS (or this file's flags) rebuilds what they were used for.
FLAGS_STAMP := $(B)/obj/.flags
FLAGS_NOW   := $(CFLAGS_ALL) | $(LDFLAGS_ALL)
$(shell mkdir -p $(B)/obj && { [ -r $(FLAGS_STAMP) ] && [ "$$(cat $(FLAGS_STAMP))" = '$(FLAGS_NOW)' ] || printf '%s\n' '$(FLAGS_NOW)' >$(FLAGS_STAMP); })

PROGRAMS = $(B)/bin/stap $(B)/bin/staprun $(B)/bin/stapio $(B)/bin/stap-merge $(B)/bin/app-trace-report

.PHONY: all check check-secureboot check-unit check-guest check-asan check-kernels deps deps-kernels trace install clean bench man-tapset
all: $(PROGRAMS) man-tapset

# probe::NAME.3stap, function::NAME.3stap and tapset::FILE.3stap from the tapset's doc comments
# (scripts/gen-tapset-man.sh), rebuilt when a tapset file changes.
TAPSET_FILES = $(shell find tapset -name '*.stp')
man-tapset: $(B)/man/.stamp
$(B)/man/.stamp: $(TAPSET_FILES) scripts/gen-tapset-man.sh
	@rm -rf $(B)/man
	@scripts/gen-tapset-man.sh $(B)/man
	@touch $@

$(B)/bin/stap: $(TRANSLATOR_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(STAP_LIBS)
$(B)/bin/staprun: $(STAPRUN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^
# stapio serves a BPF run's procfs files through FUSE (stapio/bpfprocfs.c)
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
$(B)/obj/stapio/bpfprocfs.o: CFLAGS += $(FUSE_CFLAGS)
$(B)/bin/stapio: $(STAPIO_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lbpf -lfuse3
$(B)/bin/stap-merge: $(MERGE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^
$(B)/bin/app-trace-report: $(ATR_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^

$(B)/gen/parser.c $(B)/gen/parser.h &: translator/parse/parser.y
	@mkdir -p $(@D)
	bison -Wall -Werror --defines=$(B)/gen/parser.h -o $(B)/gen/parser.c $<
$(B)/gen/lexer.c: translator/parse/lexer.l $(B)/gen/parser.h
	@mkdir -p $(@D)
	flex -o $@ $<

# generated sources: warnings that flex/bison output triggers are not ours
$(B)/obj/gen/%.o: $(B)/gen/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Wno-unused-function -Wno-sign-compare -MMD -MP -c -o $@ $<
$(B)/obj/translator/%.o: translator/%.c $(FLAGS_STAMP) | $(B)/gen/parser.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<
$(B)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)

# Installs what building and the guest tests need (idempotent, quiet when present).
deps:
	@scripts/install-deps.sh

# deps, and the extra test kernels (6.12, 6.12-rt, 6.1-rt) with their headers and DWARF.
deps-kernels:
	@scripts/install-deps.sh --kernels

# The main job: a real trace in the guest kernel, printed for a person to read.
trace: deps all
	@tests/guest/demo.sh

# `make check` runs the suite on the default kernel and tests/kernels-short.list on every other installed
# one (DEPS_KERNELS=images installs them: .ci/run); `make check GUEST_KVER=KVER` runs the suite on one of them.
# deps first (a fresh machine has no flex or libdw yet), then the build on every core.
check:
	@scripts/install-deps.sh
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@tests/run

# The Secure Boot guest (OVMF, shim, GRUB, the signed kernel, a MOK): signed and unsigned modules, staprun's
# messages (tests/secureboot/run; two more boots of about a minute, which make check runs as guest/secureboot).
check-secureboot:
	@scripts/install-deps.sh
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@tests/secureboot/run

# The suite on every installed kernel: the default one fully, each other one with the cases
# of tests/kernels.list (scripts/check-kernels.sh).
check-kernels: deps all
	@scripts/check-kernels.sh

# The userspace programs again with AddressSanitizer and UBSan (used by tests/run). Not
# position-independent: the unit cases start these programs thousands of times, and a PIE's 88,000
# relative relocations (the sanitizers' descriptors) cost each start ~15 of its ~70 ms. -g1: the line tables
# a report's stack needs, without the variables' DWARF (a fifth of the compiler's time).
check-asan:
	@$(MAKE) --no-print-directory B=build/asan OPT="-O1 -g1" \
	    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -fno-pie -no-pie" all

bench: all
	@bench/run

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXEC) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(B)/bin/stap $(B)/bin/staprun $(B)/bin/stap-merge $(B)/bin/app-trace-report $(DESTDIR)$(BINDIR)/
	install -m 755 $(B)/bin/stapio $(DESTDIR)$(LIBEXEC)/
	cp -R runtime tapset $(DESTDIR)$(DATADIR)/
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/*.3stap $(B)/man/*.3stap $(DESTDIR)$(MANDIR)/man3/
	install -m 644 man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -d $(DESTDIR)$(UNITDIR)
	for u in systemd/*.service; do \
	    sed 's|@BINDIR@|$(BINDIR)|g' "$$u" >"$(DESTDIR)$(UNITDIR)/$${u#systemd/}" && \
	    chmod 644 "$(DESTDIR)$(UNITDIR)/$${u#systemd/}" || exit 1; \
	done

clean:
	rm -rf build

# ---- fuzzing under libFuzzer + ASan + UBSan, built with clang into build/fuzz/: parse_fuzz (pass 1),
# index_fuzz (the DWARF index file reader), record_fuzz (stapio's trace records and control lines),
# apptrace_fuzz (app-trace-report's trace lines), btf_fuzz (the BTF reader: a blob, a split blob over it),
# bpffmt_fuzz (stapio's printf formats of a BPF object and its printf records).
# `make fuzz [FUZZ_SECONDS=600] [FUZZ_JOBS=2] [FUZZ_TARGETS="parse index record"]` runs each target in
# turn for FUZZ_SECONDS (tests/fuzz/run.sh; see tests/fuzz/README.md); tests/unit/fuzz-smoke.t builds
# them and runs each on a fixed number of inputs.
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= $(shell n=$$(nproc); echo $$(( n < 2 ? 1 : 2 )))
FUZZ_TARGETS ?= parse index record apptrace btf bpffmt
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   = $(CSTD) -O1 -g1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -Itranslator -I$(B)/gen -Iruntime/transport -Iruntime
FUZZ_TRANSLATOR_OBJ = $(patsubst %.c,$(B)/fuzz/obj/%.o,$(filter-out translator/driver/main.c,$(TRANSLATOR_SRC))) \
                $(B)/fuzz/obj/gen/lexer.o $(B)/fuzz/obj/gen/parser.o $(B)/fuzz/obj/common/outopen.o
FUZZ_STAPIO_OBJ = $(patsubst %.c,$(B)/fuzz/obj/stapio/%.o,relay.c control.c output.c) $(B)/fuzz/obj/common/log.o
FUZZ_ATR_OBJ = $(patsubst %.c,$(B)/fuzz/obj/app-trace-report/%.o,parse.c jsonl.c trace.c print.c json.c escape.c)

.PHONY: fuzz
fuzz: deps $(B)/bin/stap $(patsubst %,$(B)/fuzz/%_fuzz,$(FUZZ_TARGETS))
	@rc=0; for t in $(FUZZ_TARGETS); do \
	    FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/run.sh $(B)/fuzz $$t || rc=1; done; exit $$rc

$(B)/fuzz/parse_fuzz: $(FUZZ_TRANSLATOR_OBJ) $(B)/fuzz/obj/tests/fuzz/parse_fuzz.o
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(STAP_LIBS)
$(B)/fuzz/index_fuzz: $(FUZZ_TRANSLATOR_OBJ) $(B)/fuzz/obj/tests/fuzz/index_fuzz.o
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(STAP_LIBS)
$(B)/fuzz/btf_fuzz: $(FUZZ_TRANSLATOR_OBJ) $(B)/fuzz/obj/tests/fuzz/btf_fuzz.o
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(STAP_LIBS)
$(B)/fuzz/record_fuzz: $(FUZZ_STAPIO_OBJ) $(B)/fuzz/obj/tests/fuzz/record_fuzz.o
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^
$(B)/fuzz/obj/tests/fuzz/record_fuzz.o: FUZZ_CFLAGS += -Istapio
$(B)/fuzz/bpffmt_fuzz: $(B)/fuzz/obj/stapio/bpfformat.o $(B)/fuzz/obj/common/log.o $(B)/fuzz/obj/tests/fuzz/bpffmt_fuzz.o
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^
$(B)/fuzz/obj/tests/fuzz/bpffmt_fuzz.o: FUZZ_CFLAGS += -Istapio
$(B)/fuzz/apptrace_fuzz: $(FUZZ_ATR_OBJ) $(B)/fuzz/obj/tests/fuzz/apptrace_fuzz.o
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^
$(B)/fuzz/obj/tests/fuzz/apptrace_fuzz.o: FUZZ_CFLAGS += -Iapp-trace-report
$(B)/fuzz/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -w -MMD -MP -c -o $@ $<
$(B)/fuzz/obj/%.o: %.c | $(B)/gen/parser.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wall -Wextra -MMD -MP -c -o $@ $<

# diag.c copies source lines byte by byte for every error: comparison tracing there cost about a fifth of
# the fuzzer's time (inputs with many lexer errors) and teaches it nothing; edge coverage stays
$(B)/fuzz/obj/translator/diag.o: FUZZ_CFLAGS += -fno-sanitize-coverage=trace-cmp

-include $(shell find $(B)/fuzz/obj -name '*.d' 2>/dev/null)
