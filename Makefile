# AMT Studio. Two commands do everything on a fresh Debian/Ubuntu machine:
#   make run    install what is missing, build bin/amt, open the window
#   make test   install what is missing, run every test
SHELL := /bin/bash
# A Go fetched by scripts/setup.sh (when the machine had none) lives here.
export PATH := $(HOME)/.cache/amt-studio/go/bin:$(PATH)
GO ?= go
# Short fuzzing runs in `make test` (package:target), about 2 minutes in
# all; docs/FUZZING.md says how to fuzz longer (make fuzz FUZZTIME=10m, or
# one target by hand). Every target gives each input a time budget
# (internal/fuzzbudget), so a slow input fails as a crash does.
FUZZ := engine/midi:FuzzParse engine/synth:FuzzParseSF2 engine/safetensors:FuzzParse \
	engine/token:FuzzDecode engine/token:FuzzParseVocab engine/gpt:FuzzReadConfig \
	engine/train:FuzzShard engine/pipeline:FuzzReadShard \
	engine/text:FuzzParsePrompt engine/text:FuzzABC engine/text:FuzzTable engine/text:FuzzOBM engine/text:FuzzSidecar \
	storage:FuzzRecord storage:FuzzDatabase engine/userfile:FuzzReadAll
FUZZTIME ?= 6s
# Minimizing a new input may not stall a short run (Go's default is 60 s).
FUZZMINTIME ?= 1s

.PHONY: run test build setup setup-run vet unit gpu-emu emu fuzz smoke race clean model

run: setup-run build
	./bin/amt

build:
	$(GO) build -o bin/amt .

setup:
	@scripts/setup.sh

setup-run:
	@scripts/setup.sh --run

test: setup vet unit gpu-emu fuzz smoke

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test -count=1 -timeout 15m ./...

# Every test under Go's race detector (about 25 minutes on the 2-core VM,
# most of it building instrumented; not part of `make test`). Run it after
# touching concurrent code, ui/ above all: its tests drive Fyne's software
# driver, whose fyne.Do has no UI goroutine, so an update applied off the
# test's goroutine races it (ui/bridge.go). checkptr is off because
# storage's tests feed bbolt deliberately overwritten pages, where bbolt's
# pointer casts of garbage trip it. 2026-11-27: 0 races (169 in ui and 3
# in a train test fixture before that day's fixes).
race:
	$(GO) test -race -gcflags=all=-d=checkptr=0 -count=1 -timeout 40m ./...

# The GPU backend under the CUDA emulator (engine/nn/cuda/emu, docs/GPU.md):
# the emulator's self-test, then every cuda-tagged Go test against it. A
# machine with a GPU runs the same tests on the real driver (docs/GPU.md).
EMU := bin/cuda-emu
EMU_DIR := engine/nn/cuda/emu
EMU_LIB_SRC := $(EMU_DIR)/driver.cpp $(EMU_DIR)/cublas.cpp $(EMU_DIR)/fiber.cpp $(EMU_DIR)/kernels.cpp
EMU_DEPS := $(wildcard $(EMU_DIR)/*.cpp $(EMU_DIR)/*.h $(EMU_DIR)/*.map engine/nn/cuda/kernels/*.cu engine/nn/cuda/kernels/*.cuh)
EMU_CXXFLAGS := -std=c++17 -O2 -Wall -Wno-unknown-pragmas
GPU_PKGS := ./engine/nn/cuda/... ./engine/train/... ./scripts/trainmodel

$(EMU)/libamtcudaemu.so: $(EMU_DEPS)
	@mkdir -p $(EMU)
	$(CXX) $(EMU_CXXFLAGS) -fPIC -shared -fvisibility=hidden -Wl,--version-script=$(EMU_DIR)/exports.map -o $@ $(EMU_LIB_SRC) -lpthread
	ln -sf libamtcudaemu.so $(EMU)/libcuda.so.1
	ln -sf libamtcudaemu.so $(EMU)/libcublas.so.12

$(EMU)/selftest: $(EMU_DEPS)
	@mkdir -p $(EMU)
	$(CXX) $(EMU_CXXFLAGS) -o $@ $(EMU_DIR)/selftest.cpp $(EMU_LIB_SRC) -lpthread

emu: $(EMU)/libamtcudaemu.so $(EMU)/selftest

# Reports of tests that do not collect their own land in reports.log: any
# misuse or fault there fails the target.
gpu-emu: emu
	$(EMU)/selftest engine/nn/cuda/kernels
	@rm -f $(EMU)/reports.log
	AMT_CUDA_EMU=$(CURDIR)/$(EMU) AMT_EMU_LOG=$(CURDIR)/$(EMU)/reports.log $(GO) test -count=1 -timeout 15m -tags cuda $(GPU_PKGS)
	AMT_CUDA_EMU=$(CURDIR)/$(EMU) AMT_EMU_LOG=$(CURDIR)/$(EMU)/reports.log $(GO) test -count=1 -timeout 15m -tags cuda -run GPU ./app/...
	@if grep -E " (misuse|fault): " $(EMU)/reports.log 2>/dev/null; then echo "gpu-emu: the CUDA emulator reported the above"; exit 1; fi

fuzz:
	@for pt in $(FUZZ); do \
	  pkg=./$${pt%%:*}; target=$${pt##*:}; \
	  if $(GO) test -list "^$$target\$$" $$pkg 2>/dev/null | grep -qx "$$target"; then \
	    echo "fuzz $$pkg $$target for $(FUZZTIME)"; \
	    for try in 1 2; do \
	      $(GO) test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINTIME) $$pkg 2>&1 | tee /tmp/amt-fuzz.$$$$.log; \
	      rc=$${PIPESTATUS[0]}; [ $$rc -eq 0 ] && break; \
	      if [ $$try -eq 1 ] && grep -q "context deadline exceeded" /tmp/amt-fuzz.$$$$.log && ! grep -q "Failing input written" /tmp/amt-fuzz.$$$$.log; then \
	        echo "fuzz: $$target stopped on Go's fuzztime shutdown race (golang/go#75804, fixed in Go 1.27), no input found: once more"; \
	      else rm -f /tmp/amt-fuzz.$$$$.log; exit 1; fi; \
	    done; rm -f /tmp/amt-fuzz.$$$$.log; \
	  fi; \
	done

# The real binary under Xvfb: its window appears, is captured, and quits cleanly.
smoke: build
	@mkdir -p bin/smoke
	scripts/xvfb-smoke.sh bin/amt bin/smoke/window.png

# Rebuild the embedded default model from ../shared/data (about 2 hours on
# the 2-core VM: arranged corpus, ingestion, training, suite; docs/MODEL.md):
# ingest, train, export to assets/model, eval. DEVICE=cuda trains on a GPU
# (auto: a GPU when there is one; cpu), with PRECISION, LOADER_WORKERS and
# PREFETCH passed to scripts/trainmodel (docs/GPU.md).
DEVICE ?= auto
model: setup
	DEVICE=$(DEVICE) PRECISION=$(PRECISION) LOADER_WORKERS=$(LOADER_WORKERS) PREFETCH=$(PREFETCH) scripts/make_model.sh

clean:
	rm -rf bin
