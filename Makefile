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
	storage:FuzzRecord storage:FuzzDatabase
FUZZTIME ?= 6s
# Minimizing a new input may not stall a short run (Go's default is 60 s).
FUZZMINTIME ?= 1s

.PHONY: run test build setup setup-run vet unit fuzz smoke clean model

run: setup-run build
	./bin/amt

build:
	$(GO) build -o bin/amt .

setup:
	@scripts/setup.sh

setup-run:
	@scripts/setup.sh --run

test: setup vet unit fuzz smoke

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test -count=1 -timeout 15m ./...

fuzz:
	@for pt in $(FUZZ); do \
	  pkg=./$${pt%%:*}; target=$${pt##*:}; \
	  if $(GO) test -list "^$$target\$$" $$pkg 2>/dev/null | grep -qx "$$target"; then \
	    echo "fuzz $$pkg $$target for $(FUZZTIME)"; \
	    $(GO) test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINTIME) $$pkg || exit 1; \
	  fi; \
	done

# The real binary under Xvfb: its window appears, is captured, and quits cleanly.
smoke: build
	@mkdir -p bin/smoke
	scripts/xvfb-smoke.sh bin/amt bin/smoke/window.png

# Rebuild the embedded default model from ../shared/data (about 45 minutes on
# the 2-core VM; docs/MODEL.md): ingest, train, export to assets/model, eval.
model: setup
	scripts/make_model.sh

clean:
	rm -rf bin
