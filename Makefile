# Builds every stage under stages/ into build/<stage>, the CPU reference and the image
# comparison into build/, and the tests into build/tests/. See README.md. `make help` prints
# this comment.
#
# Goals:
#   make                 build everything for the GPU found here (else for 7.5 and 9.0)
#   make stages          only the stages; `make tools`: cpu-reference and compare-images;
#                        `make tests`: the test programs, without running them
#   make test            build, then run every test; ends with "N passed, N failed, N skipped"
#   make list            every stage, in course order: id, folder, the stage it builds on, lesson
#                        (from the manifests, stages/*/manifest; tools/stages)
#   make diff STAGE=08   what a stage changes: its program against that of the stage it builds on,
#                        file by file (render.cu, then each part either replaces; FROM=01 for any
#                        other stage); needs neither nvcc nor stb (tools/stage-diff.sh)
#   make show STAGE=31   a stage as one whole program: its render.cu with every part it includes
#                        written out in place (tools/stage-show.sh); compiles as it stands
#   make profile STAGE=07  Nsight Compute on the stage's kernel, its manifest's profile-kernel
#                        (SCENE=, LAUNCH=N; tools/profile.sh --help):
#                        report, raw metrics and summary in results/local/<gpu>/profiles/
#                        (REFERENCE=1: the course's results/reference/<gpu>/profiles/)
#   make sanitize        every stage under compute-sanitizer (needs a GPU; tools/sanitize.sh);
#                        SANITIZE_JOBS=12: twelve runs at once on the GPU, the same report
#   make difftest SEEDS=200  the differential test: SEEDS random scenes of each track through
#                        every stage, bit for bit against the CPU references (needs a GPU;
#                        tools/difftest.sh); a failing seed's scene is kept in
#                        results/local/difftest/failed/. `make test` runs 24 seeds
#   make scenes          the scaling campaign's scenes (tools/scaling.sh, ./run.sh --scaling):
#                        build/scenes/random-1k.scene, random-10k and random-100k (1,000, 10,000
#                        and 100,000 spheres at 8192x8192; scenes/generate-random.py; python3 only),
#                        the same counts in clumps, build/scenes/clustered-1k.scene, -10k, -100k,
#                        and the path tracer's build/scenes/pt-random-1k.scene, -10k and -100k
#   make fuzz            the scene parser under libFuzzer for FUZZ_SECONDS seconds (clang;
#                        `make fuzz-build`: only build it)
#   make left-out        the stages this machine cannot build, one a line with why: those that
#                        link NCCL where it is not found (NCCL_HOME below); `make` says so too
#   make clean           removes build/, build-sanitize/, build-lineinfo/ and build-cudaNNN/
#   make help            this text; help, list, clean, diff, show, profile, scenes and fuzz need
#                        no nvcc
#
# Variables (make VAR=value, or VAR=value make):
#   CUDA_ARCH=90         build for one architecture (compute capability without the dot), or a
#                        list ("75 86", PTX for the first); default: this machine's GPU, else
#                        "75 90" (T4, H100/H200; PTX 7.5); CUDA_ARCH=all: every one nvcc knows
#   NVCC=/path/to/nvcc   another CUDA compiler than the nvcc on PATH; its headers are taken from
#                        beside it (or from CUDA_HOME=dir, given on the command line)
#   NVCC_CCBIN=g++-11    the host compiler nvcc uses (-ccbin), for a CUDA older than the gcc
#   BUILD=dir            where everything is built (default build/)
#   SANITIZE=1           host code and tests under AddressSanitizer and UBSan (build-sanitize/)
#   FMAD=true            let nvcc fuse multiply-adds (pixels move: docs/reference.md)
#   STB_INCLUDE_DIR=dir  the folder of stb_image_write.h (default /usr/include/stb)
#   NCCL_HOME=dir        where NCCL is (dir/include/nccl.h, dir/lib/libnccl.so), for stage 42;
#                        default: beside the CUDA Toolkit, else /usr (libnccl-dev)
#   FUZZ_SECONDS=60      how long `make fuzz` runs
#   STAGES_DIR=dir       another folder of stage folders (default stages/)
#   TEST_JOBS=1          make test runs its test programs one after another (default: one a
#                        core, at most 4, their outputs shown in order)
#   TEST_GPU_JOBS=4      how many runs of the stages a GPU test starts at once (default: one a
#                        core, at most 16; tests/test_support.h's batch_run())
#   REQUIRE_GPU=1        make test fails, not skips, each test that needs a GPU and finds none
#                        working (a GPU machine's CI); one shown here (/dev/nvidia*) must work anyway
#
# Without -j, make runs one job a core (at most 16: the nvcc of a stage that uses CUB peaks at about
# half a GB); `make -j1` builds one thing at a time.

# A stage's nvcc is one process on one core, and a fresh build is 89 of them: one at a time it
# takes twice as long as it must on a 2-core machine. Given no -j, take the cores.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n < 16 ? n : 16 )))
endif

NVCC ?= nvcc
CC ?= gcc
SANITIZE ?= 0
BUILD ?= $(if $(filter 1,$(SANITIZE)),build-sanitize,build)

# Goals that build no stage (help, diff, clean, profile, list, scenes: python3 alone, fuzz: clang
# alone) need neither nvcc nor stb; any other goal, or none (all), checks for both here, before
# anything runs.
TOOLLESS_GOALS := help diff show clean profile list scenes fuzz fuzz-build
NEEDS_TOOLCHAIN := $(if $(MAKECMDGOALS),$(filter-out $(TOOLLESS_GOALS),$(MAKECMDGOALS)),all)

NVCC_PATH := $(shell command -v $(NVCC) 2>/dev/null)
ifneq ($(NEEDS_TOOLCHAIN),)
ifeq ($(NVCC_PATH),)
$(error nvcc not found: install the CUDA Toolkit (11.8 to 13) and put its bin/ on PATH, or set NVCC=/path/to/nvcc)
endif
endif
# The CUDA headers for the host code: beside the nvcc used. A CUDA_HOME from the environment
# counts only for the default nvcc, so that NVCC=/other/nvcc takes its own headers.
NVCC_HOME = $(patsubst %/bin/nvcc,%,$(realpath $(NVCC_PATH)))
ifeq ($(filter command line,$(origin CUDA_HOME)),)
ifneq ($(filter environment command line,$(origin NVCC)),)
CUDA_HOME := $(NVCC_HOME)
endif
endif
CUDA_HOME ?= $(NVCC_HOME)

# What this machine lacks is installed first (tools/install-deps.sh: apt-get as root, sudo -n where
# it needs no password, else one line with the command to run): stb and ISA-L for a build, and
# cmocka, GNU parallel and python3's matplotlib too for the tests. An STB_INCLUDE_DIR given by the user is
# the user's to provide.
STB_SKIP := $(if $(filter file undefined,$(origin STB_INCLUDE_DIR)),,1)
STB_INCLUDE_DIR ?= /usr/include/stb
ifneq ($(NEEDS_TOOLCHAIN),)
DEPS_FOR := $(if $(filter test tests,$(MAKECMDGOALS)),test,build)
DEPS_STATUS := $(shell INSTALL_DEPS_SKIP_STB=$(STB_SKIP) tools/install-deps.sh $(DEPS_FOR) >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error what the $(DEPS_FOR) needs is missing (the line above says what to run))
endif
ifeq ($(wildcard $(STB_INCLUDE_DIR)/stb_image_write.h),)
$(error stb_image_write.h not found in $(STB_INCLUDE_DIR): run 'sudo apt-get install libstb-dev' (or set STB_INCLUDE_DIR))
endif
endif

# The GPU of this machine; else the course's GPUs (CUDA_ARCH_DEFAULT: the T4's 7.5 and the
# H100's and H200's 9.0) with PTX for 7.5, which the driver compiles for any GPU of 7.5 or newer
# (an A100, an L4, a Blackwell); a list (CUDA_ARCH="75 86") builds each, with PTX for its first;
# CUDA_ARCH=all: every real architecture this nvcc knows plus PTX for the newest (the full set,
# the slowest build).
CUDA_ARCH_DEFAULT := 75 90
NVIDIA_SMI ?= nvidia-smi
ifeq ($(origin CUDA_ARCH),undefined)
CUDA_ARCH := $(shell $(NVIDIA_SMI) --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
endif
ifeq ($(strip $(CUDA_ARCH)),)
override CUDA_ARCH := $(CUDA_ARCH_DEFAULT)
endif
ifeq ($(strip $(CUDA_ARCH)),all)
ARCHS := $(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/^compute_//p' | sort -n)
PTX_ARCH := $(lastword $(ARCHS))
else
ARCHS := $(strip $(CUDA_ARCH))
PTX_ARCH := $(firstword $(ARCHS))
endif
GENCODE := $(foreach a,$(ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_$(PTX_ARCH),code=compute_$(PTX_ARCH)

comma := ,
SANITIZE_FLAGS := $(if $(filter 1,$(SANITIZE)),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
# -ffp-contract=off: no fused multiply-add on the CPU either (docs/reference.md, "Same picture,
# every stage").
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -ffp-contract=off \
          -Icommon -I$(CUDA_HOME)/include -I$(STB_INCLUDE_DIR) $(SANITIZE_FLAGS)
# -fmad=false: every stage rounds each multiply and add as SPEC.md writes them, so all stages
# and the CPU reference produce the same bits (docs/reference.md, "Same picture, every stage";
# try FMAD=true). The host
# half of a .cu file gets -ffp-contract=off too: stage 12 works out per-sphere constants there.
FMAD ?= false
# NVCC_CCBIN: the host compiler of an older CUDA (11.8 takes gcc up to 11: NVCC_CCBIN=g++-11).
CCBIN_FLAGS := $(if $(strip $(NVCC_CCBIN)),-ccbin $(strip $(NVCC_CCBIN)))
NVCCFLAGS ?= -O3
NVCCFLAGS += -std=c++17 -fmad=$(FMAD) $(GENCODE) -Wno-deprecated-gpu-targets -Icommon \
             -I$(STB_INCLUDE_DIR) -Xcompiler -Wall,-Wextra -Xcompiler -ffp-contract=off \
             -Werror all-warnings $(CCBIN_FLAGS)
LDLIBS := -lstb -lisal -lpthread -lm
# nvcc splits -Xcompiler values at commas: one -Xcompiler per flag, and no comma inside one.
NVCC_LDFLAGS := $(CCBIN_FLAGS) $(if $(filter 1,$(SANITIZE)),$(foreach f,-fsanitize=address \
                -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=all,-Xcompiler $(f)))

# The stages, as their manifests list them (tools/stages: the one reader of stages/*/manifest):
# the main track (stages/NN-name, side stages NNx-name) and the path-tracing track
# (stages/pNN-name, pNNx-name; SPEC-PATH-TRACING.md). Each stage links its render.cu, its
# manifest made C (tools/stages c-source), the one main() of every stage and its track's half.
# STAGES_DIR: another folder of stage folders (the tests' made-up stages; default stages).
STAGES_DIR ?= stages
export STAGES_DIR
STAGES := $(shell tools/stages list main)

# NCCL, the library of the stages whose manifest has `libraries: nccl` (chapter 6's stage of one
# process a GPU): looked for in NCCL_HOME (include/nccl.h and lib/libnccl.so) where it is given,
# else beside the CUDA Toolkit (CUDA_HOME/include, CUDA_HOME/lib64), else where libnccl-dev puts
# it (/usr/include, /usr/lib/<arch>-linux-gnu). Where it is not found, those stages are left out:
# `make`, `make stages` and `make test` say so in one line, `make build/<stage>` of one fails
# saying why, `make left-out` lists them ("STAGE: why"), and the tests and tools pass them over.
NCCL_STAGES := $(shell tools/stages list main --library nccl)
NCCL_PLACES := $(if $(NCCL_HOME),$(NCCL_HOME)/include:$(NCCL_HOME)/lib,$(CUDA_HOME)/include:$(CUDA_HOME)/lib64 \
               /usr/include:/usr/lib/$(shell uname -m)-linux-gnu)
NCCL_FOUND := $(firstword $(foreach p,$(NCCL_PLACES),$(if $(and $(wildcard $(word 1,$(subst :, ,$(p)))/nccl.h),$(wildcard $(word 2,$(subst :, ,$(p)))/libnccl.so)),$(p))))
NCCL_INCLUDE := $(word 1,$(subst :, ,$(NCCL_FOUND)))
NCCL_LIB := $(word 2,$(subst :, ,$(NCCL_FOUND)))
NCCL_MISSING := no nccl.h and libnccl.so in $(if $(NCCL_HOME),NCCL_HOME=$(NCCL_HOME),$(if $(CUDA_HOME),$(CUDA_HOME) or )/usr): install NCCL (libnccl-dev from NVIDIA's CUDA repository, or its tarball with NCCL_HOME=its folder)
ifeq ($(NCCL_FOUND),)
STAGES := $(filter-out $(NCCL_STAGES),$(STAGES))
LEFT_OUT := $(NCCL_STAGES)
ifneq ($(and $(NCCL_STAGES),$(filter all stages test,$(or $(MAKECMDGOALS),all))),)
$(info make: left out $(NCCL_STAGES): $(NCCL_MISSING))
endif
endif
STAGE_BINS := $(addprefix $(BUILD)/,$(STAGES))
# common/ by room: runtime/ (what every stage runs on: main(), options, the report, the GPU),
# image/ (the image files), raytrace/ (the main track: its scene, specification arithmetic, CPU
# reference, track half, math and chapters' shared parts), pathtrace/ (the path-tracing track's).
HOST_SOURCES := raytrace/scene runtime/scene_text runtime/files runtime/options runtime/report \
                image/image image/png_encode image/png_deflate image/png_filter \
                image/adler32_combine raytrace/cpu_reference runtime/parallel_rows \
                runtime/host_pages runtime/ranks raytrace/bvh image/frame_out pathtrace/pt_scene \
                pathtrace/pt_record pathtrace/pt_reference pathtrace/pt_job pathtrace/pt_bvh
HOST_OBJECTS := $(addprefix $(BUILD)/obj/,$(addsuffix .o,$(HOST_SOURCES)))
STAGE_OBJECTS := $(BUILD)/obj/runtime/stage_main.o $(BUILD)/obj/raytrace/rt_track.o \
                 $(BUILD)/obj/runtime/gpu.o $(BUILD)/obj/runtime/count_rays.o
PT_STAGES := $(shell tools/stages list pt)
PT_STAGE_BINS := $(addprefix $(BUILD)/,$(PT_STAGES))
# A stage whose manifest lists --record (a kernel per segment: p01-p07) also builds its kernel
# benchmark, build/<stage>-bench: the same render.cu, another main (its stage_bench()).
PT_BENCH_STAGES := $(shell tools/stages list pt --option --record)
PT_BENCH_BINS := $(addsuffix -bench,$(addprefix $(BUILD)/,$(PT_BENCH_STAGES)))
PT_STAGE_OBJECTS := $(BUILD)/obj/runtime/stage_main.o $(BUILD)/obj/pathtrace/pt_track.o \
                    $(BUILD)/obj/runtime/gpu.o $(BUILD)/obj/runtime/count_rays.o
PT_BENCH_OBJECTS := $(BUILD)/obj/pathtrace/pt_bench_main.o $(BUILD)/obj/runtime/gpu.o
TEST_SOURCES := $(sort $(wildcard tests/test_*.c))
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SOURCES))
HEADERS := $(wildcard common/*/*.h)

.PHONY: all stages tools tests test clean help
all: stages tools
stages: $(STAGE_BINS) $(PT_STAGE_BINS) $(PT_BENCH_BINS)
tools: $(BUILD)/cpu-reference $(BUILD)/pt-reference $(BUILD)/compare-images \
       $(BUILD)/check-shared-reciprocal $(BUILD)/png-bench $(BUILD)/walk-work
tests: $(TEST_BINS)

# Rebuild the GPU code when its flags (architectures, FMAD) change.
$(BUILD)/nvcc-flags.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(NVCCFLAGS)' | cmp -s - $@ || echo '$(NVCCFLAGS)' > $@
FORCE:

$(BUILD)/obj/%.o: common/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/runtime/count_rays.o: common/runtime/count_rays.cu $(HEADERS) $(BUILD)/nvcc-flags.txt
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# A stage's manifest as C, for its --help and its options (common/runtime/stage_manifest.h).
$(BUILD)/obj/manifests/%.c: $(STAGES_DIR)/%/manifest tools/stages
	@mkdir -p $(@D)
	tools/stages c-source $* > $@.tmp && mv $@.tmp $@

.PRECIOUS: $(BUILD)/obj/manifests/%.c
$(BUILD)/obj/manifests/%.o: $(BUILD)/obj/manifests/%.c common/runtime/stage_manifest.h
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libcommon.a: $(HOST_OBJECTS)
	ar rcs $@ $^

# Each stage: its render.cu and the parts it includes (nvcc's dependency list, obj/stages/*.d,
# names them: a part changed rebuilds every stage that includes it), with ptxas's resource report
# (registers, stack frame, spills, shared and constant memory per architecture) kept beside the
# executable.
$(BUILD)/obj/stages/%.o: $(STAGES_DIR)/%/render.cu $(HEADERS) $(BUILD)/nvcc-flags.txt
	@mkdir -p $(@D)
	@echo "$(NVCC) ... -Xptxas -v -c $< -o $@ 2> $(BUILD)/$*.resources.txt"
	@$(NVCC) $(NVCCFLAGS) -MMD -MP -MF $(BUILD)/obj/stages/$*.d -Xptxas -v -c $< -o $@ 2> $(BUILD)/$*.resources.txt \
	  || { cat $(BUILD)/$*.resources.txt >&2; exit 1; }
	@grep -v -e '^ptxas info' -e '^ptxas *$$' -e 'bytes stack frame' $(BUILD)/$*.resources.txt >&2 || true

-include $(wildcard $(BUILD)/obj/stages/*.d)

$(STAGE_BINS): $(BUILD)/%: $(BUILD)/obj/stages/%.o $(BUILD)/obj/manifests/%.o $(STAGE_OBJECTS) \
                            $(BUILD)/libcommon.a
	$(NVCC) $(NVCC_LDFLAGS) -o $@ $^ $(LDLIBS)

# The stages that link NCCL (above): its header and library where it was found; else a make of
# one of them says why it cannot be built.
ifneq ($(NCCL_FOUND),)
$(addprefix $(BUILD)/obj/stages/,$(addsuffix .o,$(NCCL_STAGES))): NVCCFLAGS += -I$(NCCL_INCLUDE)
$(addprefix $(BUILD)/,$(NCCL_STAGES)): LDLIBS += -L$(NCCL_LIB) -Xlinker -rpath,$(NCCL_LIB) -lnccl
else
$(addprefix $(BUILD)/,$(NCCL_STAGES)):
	@echo "make: $(@F) is left out: $(NCCL_MISSING)" >&2; exit 2
endif

# The stages this build leaves out, one a line: "STAGE: why" (nothing when it builds them all).
.PHONY: left-out
left-out:
	@$(foreach s,$(LEFT_OUT),echo "$(s): $(NCCL_MISSING)";) true

$(PT_STAGE_BINS): $(BUILD)/%: $(BUILD)/obj/stages/%.o $(BUILD)/obj/manifests/%.o $(PT_STAGE_OBJECTS) \
                               $(BUILD)/libcommon.a
	$(NVCC) $(NVCC_LDFLAGS) -o $@ $^ $(LDLIBS)

$(PT_BENCH_BINS): $(BUILD)/%-bench: $(BUILD)/obj/stages/%.o $(BUILD)/obj/manifests/%.o \
                                    $(PT_BENCH_OBJECTS) $(BUILD)/libcommon.a
	$(NVCC) $(NVCC_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/pt-reference: $(BUILD)/obj/pathtrace/pt_reference_main.o $(BUILD)/libcommon.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/cpu-reference: $(BUILD)/obj/raytrace/cpu_reference_main.o $(BUILD)/libcommon.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# Stage 20's shared-reciprocal quotient against IEEE division, on a GPU (see its comment).
$(BUILD)/check-shared-reciprocal: tools/lab/check-shared-reciprocal.cu $(BUILD)/obj/runtime/gpu.o $(BUILD)/libcommon.a \
                                  $(HEADERS) $(BUILD)/nvcc-flags.txt
	$(NVCC) $(NVCCFLAGS) $(NVCC_LDFLAGS) -o $@ $< $(BUILD)/obj/runtime/gpu.o $(BUILD)/libcommon.a $(LDLIBS)

$(BUILD)/compare-images: $(BUILD)/obj/image/compare_images_main.o $(BUILD)/libcommon.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# What an exact walk leaves a ray to test, and its floor on a GPU (tools/walk-work.c; stage 30).
$(BUILD)/walk-work: tools/walk-work.c $(BUILD)/libcommon.a $(HEADERS)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libcommon.a $(LDLIBS)

# The PNG encoders timed on one image (tools/lab/png-bench.c; common/image/png_encode.c has the numbers).
$(BUILD)/png-bench: tools/lab/png-bench.c $(BUILD)/libcommon.a $(HEADERS)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libcommon.a $(LDLIBS)

$(BUILD)/tests/%: tests/%.c tests/test_support.h tests/png_checks.h $(BUILD)/libcommon.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(BUILD)/libcommon.a -lcmocka $(LDLIBS)

test: all tests
	@BUILD=$(BUILD) $(if $(TEST_JOBS),TEST_JOBS=$(TEST_JOBS)) $(if $(TEST_GPU_JOBS),TEST_GPU_JOBS=$(TEST_GPU_JOBS)) \
	    $(if $(REQUIRE_GPU),REQUIRE_GPU=$(REQUIRE_GPU)) tests/run-tests.sh $(TEST_BINS)

clean:
	rm -rf build build-sanitize build-lineinfo build-cuda[0-9]* build-cuda[0-9]*.log

.PHONY: list
list:
	@tools/stages table | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$$i] = i; next } \
	    { printf "%-5s %-40s %-30s %s\n", $$c["id"], $$c["stage"], $$c["builds-on"], $$c["lesson"] }'

# The scaling campaign's scenes (tools/scaling.sh): scenes/generate-random.py COUNT with its
# default seed and size (8192x8192); COUNT = 999, 9999, 99999, so that with the floor they hold
# 1,000, 10,000 and 100,000 spheres. Rewritten when the generator changes.
SCENE_COUNT_1k := 999
SCENE_COUNT_10k := 9999
SCENE_COUNT_100k := 99999
SCALING_SCENES := $(foreach n,1k 10k 100k,$(BUILD)/scenes/random-$(n).scene)
# The same counts in another shape (--clustered: dense clumps and four large spheres).
CLUSTERED_SCENES := $(foreach n,1k 10k 100k,$(BUILD)/scenes/clustered-$(n).scene)
# The path tracer's (--path-tracing, 1024x1024 at 2 samples): the same places, with the floor and
# the benchmark's two lamps 1,000, 10,000 and 100,000 spheres.
PT_SCENE_COUNT_1k := 997
PT_SCENE_COUNT_10k := 9997
PT_SCENE_COUNT_100k := 99997
PT_SCALING_SCENES := $(foreach n,1k 10k 100k,$(BUILD)/scenes/pt-random-$(n).scene)
.PHONY: scenes
scenes: $(SCALING_SCENES) $(CLUSTERED_SCENES) $(PT_SCALING_SCENES)

$(SCALING_SCENES): $(BUILD)/scenes/random-%.scene: scenes/generate-random.py
	@mkdir -p $(@D)
	python3 scenes/generate-random.py $(SCENE_COUNT_$*) > $@.tmp && mv $@.tmp $@

$(CLUSTERED_SCENES): $(BUILD)/scenes/clustered-%.scene: scenes/generate-random.py
	@mkdir -p $(@D)
	python3 scenes/generate-random.py $(SCENE_COUNT_$*) --clustered > $@.tmp && mv $@.tmp $@

$(PT_SCALING_SCENES): $(BUILD)/scenes/pt-random-%.scene: scenes/generate-random.py
	@mkdir -p $(@D)
	python3 scenes/generate-random.py $(PT_SCENE_COUNT_$*) --path-tracing > $@.tmp && mv $@.tmp $@

# The header comment of this file, without its '#'s.
help:
	@sed -n '/^#/!q; s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

# What a stage changes: diff -u of its predecessor's program against its own, file by file (a side
# stage's predecessor is the stage it branches from), or FROM's. Coloured on a terminal, plain when piped.
# Status 1 from diff only means "they differ"; errors (unknown stage, 01 without FROM) are 2.
.PHONY: diff show
show:
	@test -n "$(STAGE)" || { echo "make show: name a stage: make show STAGE=31 (a side stage: STAGE=28a)" >&2; exit 2; }
	@tools/stage-show.sh --stages '$(STAGES_DIR)' '$(STAGE)'

diff:
	@test -n "$(STAGE)" || { echo "make diff: name a stage: make diff STAGE=07 (a side stage: STAGE=07a; another pair: FROM=01)" >&2; exit 2; }
	@status=0; tools/stage-diff.sh --stages '$(STAGES_DIR)' '$(STAGE)' $(if $(strip $(FROM)),'$(strip $(FROM))') || status=$$?; \
	[ "$$status" -le 1 ] || exit "$$status"

# Nsight Compute on one stage, built with -lineinfo into build-lineinfo/ (tools/profile.sh says
# what it needs: ncu and a GPU; without them it exits 2 with one line).
.PHONY: profile
profile:
	@test -n "$(STAGE)" || { echo "make profile: name a stage: make profile STAGE=07 (SCENE=FILE, LAUNCH=N: tools/profile.sh --help)" >&2; exit 2; }
	@tools/profile.sh $(if $(strip $(SCENE)),--scene '$(strip $(SCENE))') $(if $(strip $(LAUNCH)),--launch '$(strip $(LAUNCH))') $(if $(filter 1,$(REFERENCE)),--reference) '$(STAGE)'

# ---- Reliability: compute-sanitizer on every stage, and the scene-parser fuzzer -------------
#
#   make sanitize           every stage under compute-sanitizer (memcheck, racecheck, initcheck,
#                           synccheck) on scenes/quick.scene and scenes/odd-size.scene; the report
#                           goes to results/local/<gpu>/sanitizer.txt (RESULTS=results/reference: the
#                           course's record; tools/sanitize.sh). SANITIZE_JOBS=N: N runs at once
#                           (default 1). Needs a GPU: without one it says it was skipped and succeeds.
#                           The course's record, on the H100, which tests/test_sanitizer_record.c
#                           requires to name every stage, all clean:
#                           RESULTS=results/reference SANITIZE_JOBS=12 SANITIZE_TIMEOUT=300 tools/sanitize.sh
#   make fuzz               builds fuzz/scene_fuzzer.c with clang -fsanitize=fuzzer,address,undefined
#                           and runs it on scene_parse() for FUZZ_SECONDS (seeds: scenes/*.scene and
#                           tests/bad-scenes/); fails on any crash, leak or sanitizer report, whose
#                           input is kept as $(FUZZ_DIR)/crash-* (make it a file in tests/bad-scenes/).
#                           Needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev).
.PHONY: sanitize fuzz fuzz-build
sanitize: stages
	BUILD=$(BUILD) SANITIZE_JOBS=$(SANITIZE_JOBS) tools/sanitize.sh

# The differential test (tools/difftest.sh): random scenes of both tracks (tools/random-scene.py,
# seeds 1 to SEEDS) through every stage, each image against its track's CPU reference, bit for
# bit. Without a GPU it says it was skipped (status 77) and succeeds, as make sanitize does.
SEEDS ?= 200
.PHONY: difftest
difftest: stages $(BUILD)/cpu-reference $(BUILD)/pt-reference $(BUILD)/compare-images
	@status=0; tools/difftest.sh --seeds '$(SEEDS)' --bin-dir '$(BUILD)' || status=$$?; \
	[ "$$status" -eq 77 ] || exit "$$status"

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR ?= build/fuzz
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
              -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Icommon

$(FUZZ_DIR)/scene_fuzzer: fuzz/scene_fuzzer.c common/raytrace/scene.c common/runtime/scene_text.c common/runtime/files.c \
                          $(HEADERS)
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz: $(FUZZ_CC) not found: install clang and libFuzzer (Debian: apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ fuzz/scene_fuzzer.c common/raytrace/scene.c common/runtime/scene_text.c \
	    common/runtime/files.c -lm

fuzz-build: $(FUZZ_DIR)/scene_fuzzer

# The first corpus folder collects what libFuzzer finds (kept between runs); the others are seeds.
fuzz: $(FUZZ_DIR)/scene_fuzzer
	@mkdir -p $(FUZZ_DIR)/corpus
	@echo "fuzz: scene_parse() for $(FUZZ_SECONDS) s (log: $(FUZZ_DIR)/fuzz.log)"
	@status=0; \
	$(FUZZ_DIR)/scene_fuzzer -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -dict=fuzz/scene.dict -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus scenes tests/bad-scenes \
	    > $(FUZZ_DIR)/fuzz.log 2>&1 || status=$$?; \
	runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_DIR)/fuzz.log | tail -n 1); \
	if [ "$$status" -ne 0 ]; then \
	    tail -n 60 $(FUZZ_DIR)/fuzz.log; \
	    echo "fuzz: FAILED after $${runs:-?} executions (exit status $$status); input kept as:"; \
	    ls $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/leak-* $(FUZZ_DIR)/timeout-* $(FUZZ_DIR)/oom-* 2>/dev/null; \
	    exit 1; \
	fi; \
	echo "fuzz: $${runs:-?} executions in $(FUZZ_SECONDS) s, no crash ($$(ls $(FUZZ_DIR)/corpus | wc -l) inputs in $(FUZZ_DIR)/corpus)"
