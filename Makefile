# The two commands of the README: `make demo` and `make test`. Each creates what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# make demo installs the runtime dependencies only; make test adds the development tools.
RUNTIME_STAMP := $(VENV)/.runtime-stamp
STAMP := $(VENV)/.installed-stamp
# dynalite (npm), the second DynamoDB the sharing tests run against; Node.js is on every machine.
DYNALITE := tests/dynalite/node_modules/.installed-stamp

.PHONY: help demo test lint bench bench-share bench-scale bench-deep bench-fleet clean build-AuditorFunction

# `make help` lists every target that has a `## ` comment block right above it, with the block's
# first line: the comments below are the one place a target is described.
## List the targets, one line each.
help:
	@awk '/^## /{ if (!block) first = substr($$0, 4); block = 1; next } \
		/^[A-Za-z][A-Za-z_-]*:/{ if (block) { sub(/:.*/, ""); printf "%-22s %s\n", $$0, first } } \
		{ block = 0 }' $(firstword $(MAKEFILE_LIST))

$(RUNTIME_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $(RUNTIME_STAMP)

$(STAMP): $(RUNTIME_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

## Audit the embedded demo site, served on 127.0.0.1.
## It serves the embedded demo site on 127.0.0.1, audits it through the handler, prints the report
## (`.venv/bin/python -m sitemap_auditor demo` prints the exact JSON result instead).
demo: $(RUNTIME_STAMP)
	$(BIN)/sitemap-auditor demo

$(DYNALITE): tests/dynalite/package.json tests/dynalite/package-lock.json
	cd tests/dynalite && npm ci --no-audit --no-fund --loglevel=error
	@touch $(DYNALITE)

## Lint, type-check, every test (a few minutes; needs npm).
## The whole test suite, slow tests included; npm installs dynalite for the sharing tests.
## `.venv/bin/python -m pytest -m "not slow"` leaves the slow tests out.
test: $(STAMP) $(DYNALITE)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup

## Lint and type-check only.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

## The parse-path benchmark, into bench/RESULTS.md.
## (`bench/run.py --quick` writes its report into bench/out/ instead.)
bench: $(STAMP)
	$(BIN)/python bench/run.py

## One site audited 100 times at once, sharing on and off.
## 100 simultaneous audits of one site with a 20 MB sitemap, sharing on and off (bench/share.py).
bench-share: $(STAMP)
	$(BIN)/python bench/share.py

## The deep audit beside two peers on 500,000 URLs.
## The peers, ultimate-sitemap-parser and advertools, go into the venv for the benchmark only; `--large` adds 10 M URLs.
bench-deep: $(STAMP)
	$(BIN)/python -m pip install --quiet ultimate-sitemap-parser advertools
	$(BIN)/python bench/deep.py $(BENCH_DEEP_ARGS)

## Sharing at scale, the real driver in virtual time.
## Bursts, a hot site and days of audits, sharing on and off (bench/scale.py).
bench-scale: $(STAMP)
	$(BIN)/python bench/scale.py

## Sharing on and off, the real driver in virtual time.
## The scenarios of bench/fleet.py, with in-process only beside them, into bench/RESULTS.md.
bench-fleet: $(STAMP)
	$(BIN)/python bench/fleet.py

LAMBDA_PLATFORM ?= manylinux2014_aarch64
LAMBDA_PLATFORM_2_28 ?= $(subst manylinux2014,manylinux_2_28,$(LAMBDA_PLATFORM))
LAMBDA_PYTHON ?= 3.13

# The build's bytecode: the modules a cold start and a first audit import (build-AuditorFunction).
define COLD_PATH
import importlib.util, os, py_compile, sys
root = os.path.abspath(sys.argv[1]) + os.sep
for name in [n for n in os.environ if n.startswith(("SITEMAP_", "AWS_", "POWERTOOLS_"))]:
    del os.environ[name]
os.environ["SITEMAP_ALLOW_PRIVATE_NETWORKS"] = "true"
sys.path.insert(0, root)
import sitemap_auditor.handler as handler
handler.run({"url": "http://127.0.0.1:9/"}, None, handler.SETTINGS)
for path in sorted({getattr(m, "__file__", None) or "" for m in list(sys.modules.values())}):
    if path.startswith(root) and path.endswith(".py"):
        py_compile.compile(
            path, importlib.util.cache_from_source(path), doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
endef
export COLD_PATH

## Build the Lambda artifact into ARTIFACTS_DIR (sam build).
## `sam build` calls this (template.yaml: BuildMethod makefile). The artifact is the package and
## what requirements.txt lists, as wheels for the function's arm64 Python 3.13 whatever the build
## machine: installed without their own dependencies (requirements.txt names every one the runtime
## lacks; boto3 and its dependencies come with the runtime), with bytecode only for the modules a
## cold start and a first audit import (COLD_PATH), and only when the build machine's Python is the
## function's (LAMBDA_PYTHON: `sam build --use-container`), compiled unchecked (/var/task is
## read-only: a cold start would compile them again each time, about 140 ms of a 300 ms import;
## the whole package's bytecode would add 2.5 MB zipped, this 0.8 MB), and without the console
## scripts of bin/ or the top-level folders
## that are no package (ada-url's docs/, wrapt's stubs): anything but a .dist-info without __init__.py.
## The command line and the deep audit (`cli/`, `deep/`, `__main__.py`, and the recordings the
## deep audit replays, `fetching/replay.py`; the signals they take, `core/interrupts.py`; the
## page check's kept connections, `fetching/kept_transport.py`) never run in the function, nor
## does the tests' in-memory transport (`fetching/memory_transport.py`): they are left out of it.
## LAMBDA_PLATFORM and LAMBDA_PYTHON build for another machine (tests/function/test_runtime.py builds for its own).
## Some wheels (ada-url's) are tagged manylinux_2_28 only, which the function's runtime (Amazon
## Linux 2023, glibc 2.34) runs: both tags are asked for.
## Without ARTIFACTS_DIR (or with / or an empty value) it refuses before anything is written.
build-AuditorFunction:
	@case "$$(realpath -m -- "$(strip $(ARTIFACTS_DIR))/" 2>/dev/null)" in ""|/) \
		echo "build-AuditorFunction: set ARTIFACTS_DIR to the folder to build into (sam build does); not / or empty" >&2; \
		exit 2;; esac
	$(PYTHON) -m pip install --quiet --target "$(ARTIFACTS_DIR)" --requirement requirements.txt \
		--platform $(LAMBDA_PLATFORM) --platform $(LAMBDA_PLATFORM_2_28) \
		--implementation cp --python-version $(LAMBDA_PYTHON) \
		--only-binary=:all: --no-deps --no-compile --upgrade
	rm -rf "$(ARTIFACTS_DIR)/bin"
	for d in "$(ARTIFACTS_DIR)"/*/; do \
		case "$$d" in *.dist-info/) ;; *) [ -e "$${d}__init__.py" ] || rm -rf "$$d";; esac; \
	done
	cp -r sitemap_auditor "$(ARTIFACTS_DIR)/"
	rm -rf "$(ARTIFACTS_DIR)/sitemap_auditor/cli" "$(ARTIFACTS_DIR)/sitemap_auditor/deep" \
		"$(ARTIFACTS_DIR)/sitemap_auditor/__main__.py" \
		"$(ARTIFACTS_DIR)/sitemap_auditor/fetching/replay.py" \
		"$(ARTIFACTS_DIR)/sitemap_auditor/fetching/memory_transport.py" \
		"$(ARTIFACTS_DIR)/sitemap_auditor/fetching/kept_transport.py" \
		"$(ARTIFACTS_DIR)/sitemap_auditor/core/interrupts.py"
	find "$(ARTIFACTS_DIR)/sitemap_auditor" -name __pycache__ -type d -prune -exec rm -rf {} +
	if [ "$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$(LAMBDA_PYTHON)" ]; then \
		$(PYTHON) -c "$$COLD_PATH" "$(ARTIFACTS_DIR)" > /dev/null; fi

## Remove .venv, caches, builds, bench/out/, __pycache__.
clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .aws-sam build dist *.egg-info \
		bench/out tests/dynalite/node_modules
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
