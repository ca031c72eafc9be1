# make demo: the whole job on bundled sample sessions against S3 on loopback
# make test: the test suite
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PYTEST_WORKERS ?= 2

.PHONY: demo test bench deps clean

$(STAMP): pyproject.toml scripts/system-deps.sh
	bash scripts/system-deps.sh $(SYSTEM_EXTRAS)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

deps: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/archiver demo

test: SYSTEM_EXTRAS = --extras
test: $(STAMP)
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) -p no:cacheprovider

bench: SYSTEM_EXTRAS = --extras
bench: $(STAMP)
	$(PY) bench/redact.py --mb 200
	$(PY) bench/sync.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
