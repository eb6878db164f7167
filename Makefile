# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test install bench clean dataplane browser docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	mkdir -p out
	$(BIN)/nfvperf demo --plot out/demo.png

# The documentation site (Sphinx, offline) in out/docs; `make test` builds it strictly too.
docs: $(STAMP)
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs out/docs
	@echo "docs: out/docs/index.html"

# The data plane (DPDK, hugepages) is set up and built where it can be; its tests skip elsewhere.
dataplane: $(STAMP)
	@bash dataplane/setup.sh
	@$(BIN)/nfvperf dataplane build -q || echo "dataplane: not built; its tests will skip" >&2

# Chromium opens the HTML reports in a test; installed where it can be, else that test skips.
browser:
	@bash scripts/setup-browser.sh

test: $(STAMP) dataplane browser
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python benchmarks/cli_startup.py
	$(BIN)/python benchmarks/batching.py
	$(BIN)/python benchmarks/parameter_study.py -o out/study.csv
	$(BIN)/python benchmarks/dataplane.py -o out/dataplane
	$(BIN)/nfvperf calibrate -q -o out/host.yaml
	$(BIN)/python benchmarks/nf_parallel.py --platform out/host.yaml -o out/nf_parallel
	$(BIN)/python benchmarks/chain_validate.py --platform out/host.yaml -o out/chain_validate
	$(BIN)/python benchmarks/scaling_soak.py
	$(BIN)/python benchmarks/plan_dc.py
	$(BIN)/python benchmarks/sweep_dask.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .hypothesis
