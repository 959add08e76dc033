# The two commands of the README: `make demo` and `make test`. Each creates what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# make demo installs the runtime dependencies only; make test adds the development tools.
RUNTIME_STAMP := $(VENV)/.runtime-stamp
STAMP := $(VENV)/.installed-stamp
# dynalite (npm), the second DynamoDB the sharing tests run against; Node.js is on every machine.
DYNALITE := tests/dynalite/node_modules/.installed-stamp

.PHONY: demo test lint bench bench-share bench-scale bench-fleet clean build-AuditorFunction

$(RUNTIME_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $(RUNTIME_STAMP)

$(STAMP): $(RUNTIME_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

## Serve the embedded demo site on 127.0.0.1, audit it through the handler, print the report
## (`.venv/bin/python -m sitemap_auditor demo` prints the exact JSON result instead).
demo: $(RUNTIME_STAMP)
	$(BIN)/sitemap-auditor demo

$(DYNALITE): tests/dynalite/package.json tests/dynalite/package-lock.json
	cd tests/dynalite && npm ci --no-audit --no-fund --loglevel=error
	@touch $(DYNALITE)

## Lint, type-check and run the whole test suite (slow tests included).
test: $(STAMP) $(DYNALITE)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/run.py

## 100 simultaneous audits of one site with a 20 MB sitemap, sharing on and off (bench/share.py).
bench-share: $(STAMP)
	$(BIN)/python bench/share.py

## The fleet in virtual time: the lease protocol at a hot site's scale (bench/scale.py).
bench-scale: $(STAMP)
	$(BIN)/python bench/scale.py

## Sharing on, in-process only and off side by side, the real driver in virtual time (bench/fleet.py).
bench-fleet: $(STAMP)
	$(BIN)/python bench/fleet.py

## `sam build` calls this (template.yaml: BuildMethod makefile). The artifact is the package and
## what requirements.txt lists, as wheels for the function's arm64 Python 3.13 whatever the build
## machine: installed without their own dependencies (requirements.txt names every one the runtime
## lacks; boto3 and its dependencies come with the runtime), without bytecode (the build machine's
## Python is not the function's) and without the console scripts of bin/.
## LAMBDA_PLATFORM and LAMBDA_PYTHON build for another machine (tests/function/test_runtime.py builds for its own).
## Some wheels (ada-url's) are tagged manylinux_2_28 only, which the function's runtime (Amazon
## Linux 2023, glibc 2.34) runs: both tags are asked for.
LAMBDA_PLATFORM ?= manylinux2014_aarch64
LAMBDA_PLATFORM_2_28 ?= $(subst manylinux2014,manylinux_2_28,$(LAMBDA_PLATFORM))
LAMBDA_PYTHON ?= 3.13
build-AuditorFunction:
	$(PYTHON) -m pip install --quiet --target "$(ARTIFACTS_DIR)" --requirement requirements.txt \
		--platform $(LAMBDA_PLATFORM) --platform $(LAMBDA_PLATFORM_2_28) \
		--implementation cp --python-version $(LAMBDA_PYTHON) \
		--only-binary=:all: --no-deps --no-compile --upgrade
	rm -rf "$(ARTIFACTS_DIR)/bin"
	cp -r sitemap_auditor "$(ARTIFACTS_DIR)/"
	rm -rf "$(ARTIFACTS_DIR)"/sitemap_auditor/__pycache__

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info tests/dynalite/node_modules
