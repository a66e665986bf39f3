# tshape: the two README commands, and a few helpers.
#
#   make demo    install what is missing, build, import the bundled GPT-3
#                2.7B config, lower it to linalg, summarize its GEMMs and
#                analyze them on an H100 (DEMO_TARGET=... for another GPU)
#                and run tshape advise on it (report in $(BUILD)/demo-advise)
#   make check   install what is missing (and Chromium, for the browser
#                test), build, run the lit suite and the unit tests
BUILD ?= build
JOBS  ?= $(shell nproc)
TSHAPE_OPT = $(BUILD)/bin/tshape-opt
TSHAPE_TRANSLATE = $(BUILD)/bin/tshape-translate
DEMO_CONFIG ?= examples/gpt3-2.7b.json
DEMO_TARGET ?= h100-sxm
# The run the demo imports: prefill (the forward of a 2048-token prompt),
# train (forward and backward) or decode (one step of 8 sequences over
# 2048 cached tokens); docs/inference.md.
DEMO_PHASE ?= prefill
DEMO_RUN = $(if $(filter decode,$(DEMO_PHASE)),--phase=decode --batch=8 --context=2048,--phase=$(DEMO_PHASE) --microbatch=4 --seq=2048)

.PHONY: setup configure build demo check check-sanitize fuzz fuzz-smoke docs install clean

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD) \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache

configure: setup $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== tshape IR imported from $(DEMO_CONFIG) ($(DEMO_RUN), bf16; DEMO_PHASE=train|prefill|decode picks another run) =="
	$(TSHAPE_TRANSLATE) --import-hf-config $(DEMO_CONFIG) $(DEMO_RUN) -o $(BUILD)/demo.tshape.mlir
	@cat $(BUILD)/demo.tshape.mlir
	@echo
	@echo "== lowered to linalg: first layer's GEMMs (full IR in $(BUILD)/demo.linalg.mlir) =="
	$(TSHAPE_OPT) --tshape-lower-to-linalg $(BUILD)/demo.tshape.mlir -o $(BUILD)/demo.linalg.mlir
	@grep -E "linalg\.(batch_)?matmul" $(BUILD)/demo.linalg.mlir | grep -E "tshape.layer = (0|-1) " | sed 's/^ *//'
	@echo
	@echo "== GEMM summary (one tensor-parallel rank, $(DEMO_PHASE)) =="
	$(TSHAPE_OPT) --tshape-gemm-summary $(BUILD)/demo.linalg.mlir -o /dev/null
	@echo
	@echo "== efficiency analysis on $(DEMO_TARGET) (JSON: $(BUILD)/demo.report.json) =="
	$(TSHAPE_OPT) $(BUILD)/demo.linalg.mlir --tshape-gemm-analysis="target=$(DEMO_TARGET) remarks=none report=$(BUILD)/demo.report.json" -o /dev/null
	$(TSHAPE_OPT) $(BUILD)/demo.linalg.mlir --tshape-gemm-analysis="target=$(DEMO_TARGET) remarks=none report=-" -o /dev/null
	@echo
	@echo "== the whole path in one command: tshape advise (open $(BUILD)/demo-advise/report.html) =="
	$(BUILD)/bin/tshape advise $(DEMO_CONFIG) --target=$(DEMO_TARGET) -o $(BUILD)/demo-advise

check: build
	@BROWSER=1 bash scripts/setup.sh
	cmake --build $(BUILD) --target check-tshape
	cd $(BUILD) && ctest --output-on-failure

# ASan + UBSan over the lit and unit suite, and the libFuzzer targets, from
# one clang build in its own folder (-DTSHAPE_SANITIZE=ON -DTSHAPE_FUZZ=ON:
# every tshape library is compiled with -fsanitize=address,undefined and
# fuzzer-no-link), so that CI compiles the project twice, not three times.
# Debian's LLVM libraries are not instrumented: ASan would report
# use-after-poison inside LLVM's bump allocator unless user poisoning is
# off. Leak checking is off too: MLIR keeps global registries alive to exit.
# The sweeps over every real config or measured row say UNSUPPORTED: asan
# (docs/reliability.md).
SANITIZE_BUILD ?= build-sanitize
SANITIZE_ENV = ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Configured (again) unless the folder is already this build: an older
# build-sanitize made with g++ and no fuzzers is reconfigured, not reused.
define configure-sanitize
	@FUZZ=1 bash scripts/setup.sh
	@grep -q "^TSHAPE_FUZZ:BOOL=ON" $(SANITIZE_BUILD)/CMakeCache.txt 2>/dev/null || \
	  cmake -G Ninja -S . -B $(SANITIZE_BUILD) \
	  -DTSHAPE_SANITIZE=ON -DTSHAPE_FUZZ=ON -DTSHAPE_ENABLE_CUDA=OFF \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
endef
check-sanitize:
	$(configure-sanitize)
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	$(SANITIZE_ENV) cmake --build $(SANITIZE_BUILD) --target check-tshape
	cd $(SANITIZE_BUILD) && $(SANITIZE_ENV) ctest --output-on-failure

# libFuzzer targets (clang-22 and libclang-rt-22-dev, which setup.sh installs
# with FUZZ=1), built in the sanitizer build's folder, each run for
# FUZZ_SECONDS on a working copy of its seed corpus (fuzz/corpus/<name>,
# plus examples/ for the importer). A crash, undefined behaviour, timeout
# (> 10 s) or out-of-memory stops that target with a reproducer in
# $(FUZZ_WORK); docs/reliability.md.
FUZZ_WORK ?= $(SANITIZE_BUILD)/corpora
FUZZ_SECONDS ?= 30
# FUZZ_LIMIT: how each target's run is bounded (the campaign: time; the CI
# smoke: a fixed seed and number of runs, so that it is repeatable).
FUZZ_LIMIT ?= -max_total_time=$(FUZZ_SECONDS)
FUZZ_TARGETS = FuzzHFConfig:hf-config FuzzPipeline:pipeline FuzzTargetJson:target-json FuzzCsv:csv
fuzz:
	$(configure-sanitize)
	cmake --build $(SANITIZE_BUILD) -j $(JOBS) --target FuzzHFConfig FuzzPipeline FuzzTargetJson FuzzCsv
	@set -e; for t in $(FUZZ_TARGETS); do \
	  bin=$${t%%:*}; name=$${t##*:}; mkdir -p $(FUZZ_WORK)/$$name; \
	  rm -f $(FUZZ_WORK)/$$name-*; \
	  extra=""; dict=""; \
	  if [ $$name = hf-config ]; then extra=examples; dict=-dict=fuzz/hf-config.dict; fi; \
	  echo "== $$bin ($(FUZZ_LIMIT))"; \
	  $(SANITIZE_ENV) \
	    $(SANITIZE_BUILD)/fuzz/$$bin $(FUZZ_WORK)/$$name fuzz/corpus/$$name $$extra $$dict \
	    $(FUZZ_LIMIT) -timeout=10 -rss_limit_mb=4096 \
	    -artifact_prefix=$(FUZZ_WORK)/$$name- -print_final_stats=1 2>&1 | \
	    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE|==[0-9]+==ERROR|SUMMARY|Done|.*runtime error)" || true; \
	  if ls $(FUZZ_WORK)/$$name-* > /dev/null 2>&1; then \
	    echo "fuzz: $$bin found a problem: $$(ls $(FUZZ_WORK)/$$name-*)"; exit 1; fi; \
	done

# CI's short, repeatable fuzz run: each target from its seed corpus with
# seed 1 for 60,000 inputs (the IR pipeline target, the slowest, about 30 s).
fuzz-smoke:
	$(MAKE) fuzz FUZZ_WORK=$(SANITIZE_BUILD)/smoke FUZZ_LIMIT="-seed=1 -runs=60000"

docs: configure
	cmake --build $(BUILD) --target tshape-doc
	mkdir -p docs/generated
	cp $(BUILD)/docs/generated/*.md docs/generated/

install: build
	cmake --install $(BUILD) --prefix $(or $(PREFIX),/usr/local)

clean:
	rm -rf $(BUILD)
