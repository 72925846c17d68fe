# The build that OpenBench (and engine testers' scripts) run: `make EXE=NAME`, and
# `make EXE=NAME EVALFILE=PATH` to build a network file into the engine instead of
# crates/retro-engine/nets/retro.nnue. Cargo does the work; `cargo build --release` is the same
# build without the copy.

EXE ?= retro
EVALFILE ?=

.PHONY: all clean

all:
	RETRO_EVALFILE="$(if $(EVALFILE),$(abspath $(EVALFILE)))" cargo build --release --bin retro
	cp target/release/retro "$(EXE)"

clean:
	cargo clean
