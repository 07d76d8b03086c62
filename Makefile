# Rollcall: `make run` starts the server on http://localhost:8080; `make test` runs every test.
.PHONY: run test deps lint format swift-test catalog-test budget-test browser-test fuzz-test demo

run:
	swift run rollcall serve

demo:
	swift run rollcall serve --demo

deps:
	scripts/test-deps.sh

# The budgets of docs/architecture.md: sizes, try?, imports down the target layers; and the pages' error codes made
# from the shared enums.
lint:
	swift format lint --strict --recursive Sources Tests Package.swift
	.build/python/bin/python -m pymarkdown --config .pymarkdown.json scan README.md docs
	python3 scripts/budgets.py
	python3 scripts/codes.py --check

format:
	swift format --in-place --recursive Sources Tests Package.swift

# One test at a time: on a shared 2-core machine, hundreds at once starve the tests that talk to a live server. A
# whole run takes 10-20 minutes; one that is still going after 45 is stuck, and stops with its output so far (each
# test's "started" line names where, written line by line), rather than running into the CI's own limit.
swift-test:
	swift build --build-tests
	timeout --kill-after=1m 45m stdbuf --output=L swift test --no-parallel

# The message catalogs: current, complete, readable by gettext, and no sentence left outside them.
catalog-test:
	.build/python/bin/python -m pytest -q Tests/catalogs

# The budget script fails on each budget broken once, and the architecture page names every target and folder.
budget-test:
	.build/python/bin/python -m pytest -q Tests/budgets

browser-test:
	swift build --product rollcall
	.build/python/bin/python -m pytest -q Tests/browser

fuzz-test:
	swift build --product rollcall
	.build/python/bin/python -m pytest -q Tests/fuzz

test: deps lint catalog-test budget-test swift-test browser-test fuzz-test
