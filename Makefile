# Two commands do everything: `make run` serves the app, `make test` runs lint and every test;
# `make test-fast` runs lint and the unit tests only, for a quick check while working.
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test test-fast lint install browser bench-quick clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --quiet --upgrade pip
	$(PY) -m pip install --quiet --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

# (the address Streamlit prints: without it, it asks the network for this machine's address)
run: install
	$(PY) -m streamlit run app.py --browser.serverAddress localhost

# Debian's Chromium for the browser tests; skipped (and the e2e tests with it) where it cannot
# be installed, except under CI, where tests/e2e refuse to skip.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  else echo "chromium is not installed and cannot be installed here: browser tests will skip"; fi; }

lint: install
	$(VENV)/bin/ruff check .

# Every test, in four processes at once on 2 cores: the browser tests mostly wait for the app
# and the browser, so they run in two halves of about equal length beside the app's pages
# (AppTest) and the rest; the other three reports follow the rest's. About 6 minutes.
E2E_FIRST := tests/e2e/test_every_page_at_three_sizes.py tests/e2e/test_projector.py \
	tests/e2e/test_player_in_class.py tests/e2e/test_labeling.py tests/e2e/test_deep_link.py \
	tests/e2e/test_upload_and_classes.py
TEST_LOGS := .test-browser-1.log .test-browser-2.log .test-pages.log
test: install browser lint
	@$(PY) -m pytest -p no:cacheprovider -m e2e $(E2E_FIRST) > .test-browser-1.log 2>&1 & \
	first=$$!; $(PY) -m pytest -p no:cacheprovider -m e2e tests/e2e \
	  $(addprefix --deselect=,$(E2E_FIRST)) > .test-browser-2.log 2>&1 & second=$$!; \
	$(PY) -m pytest -p no:cacheprovider -m "not e2e" tests/app > .test-pages.log 2>&1 & \
	pages=$$!; $(PY) -m pytest -m "not e2e" --ignore=tests/app --ignore=tests/e2e; rest=$$?; \
	wait $$first; b1=$$?; wait $$second; b2=$$?; wait $$pages; app=$$?; \
	for log in $(TEST_LOGS); do echo "== $$log"; cat $$log; done; rm -f $(TEST_LOGS); \
	exit $$((rest || b1 || b2 || app))

# The unit tier: no statistical reproduction, no app session, no browser (markers in
# pyproject.toml); the library's tests and the others in two processes at once, one a core.
UNIT := not slow and not app and not e2e
test-fast: install lint
	@$(PY) -m pytest -m "$(UNIT)" -p no:cacheprovider tests/s3vm_core > .unit-tests.log 2>&1 & \
	library=$$!; $(PY) -m pytest -m "$(UNIT)" --ignore=tests/s3vm_core; others=$$?; \
	wait $$library; core=$$?; echo "== the library's tests (tests/s3vm_core)"; \
	cat .unit-tests.log; rm -f .unit-tests.log; exit $$((others || core))

bench-quick: install
	$(PY) -m benchmarks.quick

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info $(TEST_LOGS)
