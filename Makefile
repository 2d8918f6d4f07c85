# sbt-bpf — build, test, benchmark.
#
#   make            build .output/sbt-bpf (and the examples)
#   sudo make demo  install missing packages, build, trace the bundled barrier example
#   sudo make check install missing packages, build, run unit and end-to-end tests
#   sudo make bench run the benchmarks in bench/
#   make fuzz       the libFuzzer harnesses, FUZZ_SECONDS (300) each (tests/fuzz/README)
#   make install    PREFIX=/usr/local DESTDIR=
#   sudo make check SANITIZE=1   the same tests, sbt-bpf and the unit tests built with
#                   AddressSanitizer + UndefinedBehaviorSanitizer (in .output-san)

# SANITIZE=1: sbt-bpf and the unit tests under ASan + UBSan (a leak or any
# undefined behaviour fails the run); examples and the probe shim as usual
# (the shim is preloaded into programs built without the sanitizers).
ifeq ($(SANITIZE),1)
OUTPUT    ?= .output-san
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif
OUTPUT    ?= .output
PREFIX    ?= /usr/local
CLANG     ?= clang
CC        ?= gcc
BPFTOOL   ?= bpftool
ARCH      := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

WARN      := -Wall -Wextra -Wno-unused-parameter
CFLAGS    ?= -O2 -g
# Includes name their layer ("lib/hmap.h", "user/bpf/session.h"): see doc/design.md.
CFLAGS    += $(SAN_FLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude -I. -I$(OUTPUT) -MMD -MP
BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -I$(OUTPUT) -Wall
LIBS      := -lbpf -lelf -ldw -lz -lpthread -lm -lstdc++
# OTF2 export when Debian's libopen-trace-format2-dev is there (scripts/deps.sh installs it)
OTF2_LIBS := $(shell pkg-config --libs otf2 2>/dev/null)
ifneq ($(OTF2_LIBS),)
CFLAGS    += -DHAVE_OTF2
LIBS      += $(OTF2_LIBS)
endif

BPF_SRCS  := bpf/sync.bpf.c bpf/proc.bpf.c bpf/futex.bpf.c bpf/counters.bpf.c bpf/self.bpf.c
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
SKEL      := $(OUTPUT)/sbt.skel.h

objs = $(patsubst %.c,$(OUTPUT)/%.o,$(1))
# Layers, lowest first (doc/design.md): lib and analyses need neither root nor
# the BPF skeleton, so `make unit` builds no BPF object.
LIB_OBJS  := $(call objs,$(wildcard lib/*.c lib/*/*.c))
ANA_OBJS  := $(call objs,$(wildcard analyses/*.c))
BPF_USER_OBJS := $(call objs,$(wildcard user/bpf/*.c))
USER_OBJS := $(BPF_USER_OBJS) $(call objs,$(wildcard user/resolve/*.c user/trace/*.c user/cmd/*.c))
PURE_OBJS := $(LIB_OBJS) $(ANA_OBJS)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))

EX_DIR    := $(OUTPUT)/examples
PTHREAD_EXAMPLES := barrier_imbalance hang_barrier mutex_contention sem_pipeline sem_barrier cond_queue cond_barrier page_touch stepper prologues \
		    custom_barrier fork_join
OMP_EXAMPLES := omp_barriers omp_cancel omp_critical omp_for omp_kernels omp_nested omp_resize omp_tailcall omp_tasks
# MPI examples, by each MPI Debian ships whose compiler wrapper is installed
# (make deps-test installs both): pure MPI, and hybrid MPI + OpenMP
MPICC_OMPI  := $(shell command -v mpicc.openmpi 2>/dev/null)
MPICC_MPICH := $(shell command -v mpicc.mpich 2>/dev/null)
MPI_EXAMPLES := $(if $(MPICC_OMPI),$(EX_DIR)/mpi_ranks_ompi $(EX_DIR)/mpi_hybrid_ompi) \
		$(if $(MPICC_MPICH),$(EX_DIR)/mpi_ranks_mpich)
# Fortran OpenMP (gfortran, libgomp), the way NPB's codes are written, and
# C++ OpenMP (clang++ with libomp; g++ with libgomp where installed): make
# deps-test installs gfortran and g++
FC_GNU := $(shell command -v gfortran 2>/dev/null)
CXX_GNU := $(shell command -v g++ 2>/dev/null)
OTHER_LANG_EXAMPLES := $(if $(FC_GNU),$(EX_DIR)/omp_heat_gfortran) $(EX_DIR)/omp_domain_llvm \
		    $(if $(CXX_GNU),$(EX_DIR)/omp_domain_gomp) $(EX_DIR)/cxx_team
EXAMPLES  := $(addprefix $(EX_DIR)/,$(PTHREAD_EXAMPLES)) $(EX_DIR)/barrier_imbalance_static \
	     $(EX_DIR)/stepper_fentry $(EX_DIR)/omp_kernels_gomp_cet $(EX_DIR)/omp_kernels_llvm_cet \
	     $(foreach e,$(OMP_EXAMPLES),$(EX_DIR)/$(e)_gomp $(EX_DIR)/$(e)_llvm) $(MPI_EXAMPLES) \
	     $(OTHER_LANG_EXAMPLES)
# The probe shim (shim/shim.h): one library per class, preloaded by --shim.
SHIM_CLASSES := barrier lock sem cond
SHIM_LIBS := $(foreach c,$(SHIM_CLASSES),$(OUTPUT)/libsbt-probes-$(c).so)
BENCH_BINS := $(OUTPUT)/bench/probe_loop $(OUTPUT)/bench/floor $(OUTPUT)/bench/gen_trace \
	      $(OUTPUT)/bench/gen_hostile \
	      $(OUTPUT)/bench/omp_count.so $(OUTPUT)/bench/hammer $(OUTPUT)/bench/pingpong

.PHONY: all deps deps-test demo check check-soak soak test unit e2e bench install clean format \
	fuzz fuzz-build

all: $(OUTPUT)/sbt-bpf $(SHIM_LIBS) $(EXAMPLES) $(BENCH_BINS)

deps:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test

# --- BPF ------------------------------------------------------------------
$(OUTPUT)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c bpf/common.bpf.h include/sbt/events.h $(OUTPUT)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	llvm-strip -g $@

$(OUTPUT)/sbt.bpf.o: $(BPF_OBJS)
	$(BPFTOOL) gen object $@ $^

$(SKEL): $(OUTPUT)/sbt.bpf.o
	$(BPFTOOL) gen skeleton $< name sbt > $@.tmp && mv $@.tmp $@

# The bench floor: empty programs on the same probes.
$(OUTPUT)/bench/floor.bpf.o: bench/floor.bpf.c $(OUTPUT)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(OUTPUT)/bench/floor.skel.h: $(OUTPUT)/bench/floor.bpf.o
	$(BPFTOOL) gen skeleton $< name floor > $@.tmp && mv $@.tmp $@

# --- userspace --------------------------------------------------------------
# Header dependencies come from -MMD; only user/bpf/ includes the skeleton.
$(OUTPUT)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BPF_USER_OBJS): $(SKEL)

$(OUTPUT)/sbt-bpf: $(USER_OBJS) $(PURE_OBJS)
	$(CC) $(CFLAGS) $^ $(LIBS) -o $@

-include $(shell find $(OUTPUT) -name '*.d' 2>/dev/null)

# --- the probe shim -----------------------------------------------------------
# No CET landing pad: a site's first instruction must be its 5-byte nop.
# -Bsymbolic: the wrappers call their own sites, never another library's.
# -z now: the shim's own imports are bound at load, not at a program thread's first call.
SHIM_CFLAGS := -O2 -g $(WARN) -std=gnu11 -D_GNU_SOURCE -I. -Iinclude -fPIC -shared -fvisibility=hidden \
	       -fcf-protection=none -Wl,-Bsymbolic -Wl,-z,now
$(OUTPUT)/libsbt-probes-cond.so: SHIM_CFLAGS += -Wl,--version-script=shim/cond.map
$(OUTPUT)/libsbt-probes-%.so: shim/%.c shim/real.c shim/fork.c shim/shim.h shim/cond.map \
			      include/sbt/events.h
	@mkdir -p $(@D)
	$(CC) $(SHIM_CFLAGS) shim/$*.c shim/real.c shim/fork.c -ldl -o $@

# --- examples and bench programs --------------------------------------------
$(EX_DIR)/%: examples/%.c examples/workload.h
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -pthread $< -o $@
# A static program: no shared C library for a preloaded shim to stand in for
$(EX_DIR)/barrier_imbalance_static: examples/barrier_imbalance.c examples/workload.h
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -pthread -static $< -o $@
# Built for function tracing, as kernels and some HPC builds are (-pg
# -mfentry -mnop-mcount): every function begins with a 5-byte nop; linked
# without -pg (no profile written at exit)
$(EX_DIR)/stepper_fentry: examples/stepper.c examples/workload.h
	@mkdir -p $(@D)
	@mkdir -p $(OUTPUT)/obj
	$(CC) -O2 -g $(WARN) -pthread -fno-pie -pg -mfentry -mnop-mcount -c $< \
		-o $(OUTPUT)/obj/stepper_fentry.o
	$(CC) -pthread -no-pie $(OUTPUT)/obj/stepper_fentry.o -o $@
# Built as Ubuntu's and Fedora's compilers build by default (x86 CET): every
# function begins with endbr64
$(EX_DIR)/omp_kernels_gomp_cet: examples/omp_kernels.c examples/workload.h
	@mkdir -p $(@D)
	gcc -O2 -g $(WARN) -fcf-protection=full -fopenmp $< -o $@
$(EX_DIR)/omp_kernels_llvm_cet: examples/omp_kernels.c examples/workload.h
	@mkdir -p $(@D)
	$(CLANG) -O2 -g $(WARN) -fcf-protection=full -fopenmp=libomp $< -o $@
# OpenMP examples, each built by gcc (libgomp) and clang (libomp)
$(EX_DIR)/%_gomp: examples/%.c examples/workload.h
	@mkdir -p $(@D)
	gcc -O2 -g $(WARN) -fopenmp $< -o $@
$(EX_DIR)/%_llvm: examples/%.c examples/workload.h
	@mkdir -p $(@D)
	$(CLANG) -O2 -g $(WARN) -fopenmp=libomp $< -o $@

# -cpp: the example names its barrier's line with __LINE__; -J: its module
# file out of the examples' directory (which holds programs only)
$(EX_DIR)/omp_heat_gfortran: examples/omp_heat.F90
	@mkdir -p $(@D) $(OUTPUT)/fortran
	$(FC_GNU) -O2 -g -Wall -fopenmp -cpp -J $(OUTPUT)/fortran $< -o $@

$(EX_DIR)/omp_domain_gomp: examples/omp_domain.cpp examples/cxx_common.hpp
	@mkdir -p $(@D)
	$(CXX_GNU) -O2 -g $(WARN) -fopenmp $< -o $@
# std::thread and a std::mutex + std::condition_variable barrier
$(EX_DIR)/cxx_team: examples/cxx_team.cpp examples/cxx_common.hpp
	@mkdir -p $(@D)
	$(CLANG)++ -O2 -g $(WARN) -pthread $< -o $@
$(EX_DIR)/omp_domain_llvm: examples/omp_domain.cpp examples/cxx_common.hpp
	@mkdir -p $(@D)
	$(CLANG)++ -O2 -g $(WARN) -fopenmp=libomp $< -o $@

$(EX_DIR)/mpi_ranks_ompi: examples/mpi_ranks.c examples/workload.h
	@mkdir -p $(@D)
	$(MPICC_OMPI) -O2 -g $(WARN) $< -o $@
$(EX_DIR)/mpi_hybrid_ompi: examples/mpi_ranks.c examples/workload.h
	@mkdir -p $(@D)
	$(MPICC_OMPI) -O2 -g $(WARN) -fopenmp $< -o $@
$(EX_DIR)/mpi_ranks_mpich: examples/mpi_ranks.c examples/workload.h
	@mkdir -p $(@D)
	$(MPICC_MPICH) -O2 -g $(WARN) $< -o $@

$(OUTPUT)/bench/probe_loop: bench/probe_loop.c
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -pthread $< -ldl -o $@

$(OUTPUT)/bench/hammer: bench/hammer.c
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -pthread $< -o $@

$(OUTPUT)/bench/pingpong: bench/pingpong.c
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) $< -o $@
FLOOR_OBJS := $(call objs,user/resolve/elfsym.c user/resolve/demangle.c user/resolve/probes.c \
			   user/bpf/uprobe_multi.c) \
	      $(LIB_OBJS)
$(OUTPUT)/bench/floor: bench/floor.c $(OUTPUT)/bench/floor.skel.h $(FLOOR_OBJS)
	$(CC) $(CFLAGS) -I$(OUTPUT)/bench $< $(FLOOR_OBJS) $(LIBS) -o $@

$(OUTPUT)/bench/omp_count.so: bench/omp_count.c
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -shared -fPIC $< -ldl -o $@

$(OUTPUT)/bench/gen_trace: bench/gen_trace.c $(PURE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(PURE_OBJS) $(OTF2_LIBS) -lm -o $@

$(OUTPUT)/bench/gen_hostile: bench/gen_hostile.c $(PURE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(PURE_OBJS) $(OTF2_LIBS) -lm -o $@

# --- tests ------------------------------------------------------------------
$(OUTPUT)/tests/%: tests/unit/%.c tests/unit/unit.h $(PURE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -DGOLDEN_DIR='"$(CURDIR)/tests/unit/golden"' $< $(UNIT_EXTRA) \
		$(PURE_OBJS) $(OTF2_LIBS) -lm -o $@
# unit tests of the resolve layer (ELF files; no BPF) link it and libelf
RESOLVE_OBJS := $(call objs,user/resolve/elfsym.c user/resolve/variable.c user/resolve/probes.c \
		user/resolve/demangle.c)
$(OUTPUT)/tests/test_elfsym: UNIT_EXTRA := $(RESOLVE_OBJS) -lelf -lstdc++
$(OUTPUT)/tests/test_elfsym: $(RESOLVE_OBJS)
# the symbolizer and its timeline, on a child of the test (libdw)
SYMBOLIZE_OBJS := $(call objs,user/resolve/symbolize.c user/resolve/sym_timeline.c \
		  user/resolve/demangle.c)
$(OUTPUT)/tests/test_symbolize: UNIT_EXTRA := $(SYMBOLIZE_OBJS) -ldw -lelf -lstdc++
$(OUTPUT)/tests/test_symbolize: $(SYMBOLIZE_OBJS)
# the drain's priority rule
$(OUTPUT)/tests/test_priority: UNIT_EXTRA := $(call objs,user/trace/priority.c)
$(OUTPUT)/tests/test_priority: $(call objs,user/trace/priority.c)
# the fuzz harnesses' output checks, tested like the rest
$(OUTPUT)/tests/test_wellformed: UNIT_EXTRA := tests/fuzz/wellformed.c
$(OUTPUT)/tests/test_wellformed: tests/fuzz/wellformed.c tests/fuzz/wellformed.h

comma := ,

# --- fuzzing (tests/fuzz/README) ----------------------------------------------
# libFuzzer harnesses, built by clang with ASan + UBSan from objects of their
# own (the normal build is untouched; libclang-rt-dev has the runtime).
# FUZZ_FAST=1: LeakSanitizer and UBSan (trapping) without ASan, in objects of
# their own: the OTF2 harness runs ~5x faster (ASan maps and faults in each
# of OTF2's 256 KiB buffers afresh), for long runs after ASan ones.
FUZZ_SAN     := $(if $(FUZZ_FAST),-fsanitize=leak$(comma)undefined -fsanitize-trap=undefined,\
		-fsanitize=address$(comma)undefined -fno-sanitize-recover=all)
FUZZ_DIR     := $(OUTPUT)/fuzz$(if $(FUZZ_FAST),-fast)
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) \
		$(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude -I. -MMD -MP \
		$(if $(OTF2_LIBS),-DHAVE_OTF2)
FUZZ_SRCS    := $(wildcard lib/*.c lib/*/*.c analyses/*.c) user/resolve/elfsym.c \
		user/resolve/probes.c user/resolve/demangle.c user/bpf/counters.c \
		$(addprefix user/cmd/,env_args.c argp_check.c approx_args.c view_args.c) \
		$(addprefix tests/fuzz/,fuzz.c passes.c wellformed.c)
FUZZ_OBJS    := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_SRCS))
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 300

# Coverage feedback from sbt-bpf's code only: the harnesses' own checks
# (tests/fuzz/*.c) would steer the fuzzer and cost a third of its time.
FUZZ_COV     := -fsanitize=fuzzer-no-link
$(FUZZ_DIR)/obj/tests/%.o: FUZZ_COV :=

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_COV) -c $< -o $@

$(FUZZ_DIR)/libsbt.a: $(FUZZ_OBJS)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libsbt.a
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_DIR)/libsbt.a $(LIBS) -o $@

# crafted traces too big to commit, made at run time (tests/fuzz/run.sh)
$(FUZZ_DIR)/hostile: tests/fuzz/hostile.c $(PURE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(PURE_OBJS) $(OTF2_LIBS) -lm -o $@

fuzz-build: $(FUZZ_BINS) $(FUZZ_DIR)/hostile

# Each harness for FUZZ_SECONDS, one after the other; the corpus grows in
# $(FUZZ_DIR)/work from run to run, what is found lands there too.
fuzz: fuzz-build
	@tests/fuzz/run.sh -t $(FUZZ_SECONDS) -w $(FUZZ_DIR)/work $(FUZZ_BINS)

# The layering of doc/design.md, checked on the includes (no build needed).
LINT      := tests/lint/check_layers.py

# the e2e tests find the build here
export SBT_OUTPUT := $(OUTPUT)

unit: $(UNIT_BINS)
	@SBT_SUITES=unit tests/run-all.sh $(UNIT_BINS) $(LINT)

e2e: all
	@SBT_SUITES=e2e tests/run-all.sh

# with a short run of each fuzz harness (tests/fuzz/run.sh: 5 s each)
test: all $(UNIT_BINS) fuzz-build
	@tests/run-all.sh $(UNIT_BINS) $(LINT) tests/fuzz/run.sh

check: deps-test
	@$(MAKE) --no-print-directory test

check-soak: deps-test
	@$(MAKE) --no-print-directory all
	@tests/soak.sh

# The load soak (not CI): 64 threads on one mutex and one barrier under
# --trace all for SOAK_SECONDS (600), the tracer's memory and CPU sampled.
soak: all
	@bench/soak.sh $(SOAK_SECONDS)

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

bench: all
	@scripts/deps.sh all
	@bench/run.sh

# --- install, format, clean ---------------------------------------------------
install: $(OUTPUT)/sbt-bpf $(SHIM_LIBS)
	install -D -m 0755 $(OUTPUT)/sbt-bpf $(DESTDIR)$(PREFIX)/sbin/sbt-bpf
	for l in $(SHIM_LIBS); do \
		install -D -m 0644 $$l $(DESTDIR)$(PREFIX)/lib/sbt-bpf/$$(basename $$l) || exit 1; \
	done
	install -D -m 0644 doc/sbt-bpf.8 $(DESTDIR)$(PREFIX)/share/man/man8/sbt-bpf.8

format:
	clang-format -i include/sbt/*.h bpf/*.c bpf/*.h lib/*.[ch] analyses/*.[ch] user/*/*.[ch] shim/*.[ch] \
		tests/unit/*.[ch] tests/fuzz/*.[ch] examples/*.[ch] examples/*.[ch]pp bench/*.c

clean:
	rm -rf $(OUTPUT)
