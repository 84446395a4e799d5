# Data into TensorFlow: the whole set-up is `make lab` (open the course) and `make test` (check it).
# Two environments: .venv-student (the course's own requirements, nothing else) runs `make lab`; .venv (the same
# plus the dev and instructor extras: tests, lint, nbgrader) runs `make lab-instructor` and every other target.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
STUDENT_VENV  := .venv-student
STUDENT_STAMP := $(STUDENT_VENV)/.installed-stamp
# JupyterLab settings both environments share (no "official Jupyter news?" prompt); copied into each environment.
LAB_SETTINGS   := lab-settings/overrides.json
LAB_OVERRIDES  := share/jupyter/lab/settings/overrides.d/data-into-tensorflow.json
# Both JupyterLabs: on 127.0.0.1 only, with Jupyter's token (printed in the URL), no news feed or update check.
LAB_OPTIONS := --ServerApp.ip=127.0.0.1 --LabApp.news_url=None --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
	$(if $(filter 0,$(shell id -u)),--allow-root)
# Kernels from the environment that runs JupyterLab win over any user-level "python3" kernelspec.
export JUPYTER_PREFER_ENV_PATH := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: lab lab-instructor test hub-test test-times test-installed check-checkers data data-verify notebooks machines navigation student-edition nbgrader \
	nbgrader-check site lint bench bench-monitor doctor clean migrate

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade --quiet pip
	$(BIN)/python -m pip install --quiet -e '.[lab,dev,instructor]'
	@touch $(STAMP)

# The student environment: the course, its dependencies and JupyterLab (the `lab` extra); no nbgrader, pytest, ruff,
# nbval or playwright.
$(STUDENT_STAMP): pyproject.toml
	@test -x $(STUDENT_VENV)/bin/python || $(PYTHON) -m venv $(STUDENT_VENV)
	$(STUDENT_VENV)/bin/python -m pip install --upgrade --quiet pip
	$(STUDENT_VENV)/bin/python -m pip install --quiet -e '.[lab]'
	@touch $(STUDENT_STAMP)

%/$(LAB_OVERRIDES): $(LAB_SETTINGS) %/.installed-stamp
	@mkdir -p $(@D)
	cp $(LAB_SETTINGS) $@

# Students: the course in JupyterLab, from .venv-student (built on first use).
lab: $(STUDENT_STAMP) $(STUDENT_VENV)/$(LAB_OVERRIDES)
	cd notebooks && ../$(STUDENT_VENV)/bin/jupyter lab $(LAB_OPTIONS) $(LAB_ARGS)

# Instructors: the same JupyterLab from .venv, with nbgrader's menus and formgrader and the tools that build the
# editions (`make student-edition`, `make nbgrader`); LAB_DIR=out/nbgrader opens the nbgrader course instead.
LAB_DIR ?= notebooks
lab-instructor: $(STAMP) $(VENV)/$(LAB_OVERRIDES)
	cd $(LAB_DIR) && $(CURDIR)/$(BIN)/jupyter lab $(LAB_OPTIONS) $(LAB_ARGS)

# nbval: every notebook executed in a fresh kernel, its outputs compared with the committed ones, each exercise's
# student stub and checker run before its solution.
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg -p tutorial_lib.classroom.nbval_student
# The measured notebooks run alone, on one core (`make machines` runs every notebook under every setting).
MEASURED_NOTEBOOKS := 05_live_dashboard 06_profiler_check
# Tests that run on 06's core after it, while 05 still runs on the other (tests/conftest.py: CORE_GROUPS).
BESIDE_MEASURED := tests/test_nbgrader.py

# Tests that run a measured notebook in a browser, alone: notebook 05's own assertions must hold there too.
MEASURED_TESTS := tests/test_browser.py
# Notebooks that `make test` verifies from the installed wheel (tests/test_installed.py), not from the checkout.
WHEEL_NOTEBOOKS := 00_start_here 02_reading_files 08_one_batch_many_evaluations 09_ptb_producer

# The student environment is built too: tests/test_lab_environments.py opens both JupyterLabs. First the other
# notebooks and the tests, TEST_WORKERS files at a time (pytest-xdist; a notebook's cells stay together, in order),
# then the measured notebooks side by side, each on a core of its own (05 alone; 06, then the nbgrader round trip),
# then the browser test alone.
TEST_WORKERS ?= 3
test: $(STAMP) $(STUDENT_STAMP) $(STUDENT_VENV)/$(LAB_OVERRIDES) $(VENV)/$(LAB_OVERRIDES)
	@rm -f out/make-test-times.jsonl
	TEST_STAGE=tests-and-notebooks $(BIN)/python -m pytest -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(NBVAL) notebooks tests \
		$(MEASURED_NOTEBOOKS:%=--ignore=notebooks/%.ipynb) $(WHEEL_NOTEBOOKS:%=--ignore=notebooks/%.ipynb) \
		$(addprefix --ignore=,$(BESIDE_MEASURED) $(MEASURED_TESTS))
	TEST_STAGE=measured-one-core $(BIN)/python -m pytest -p no:cacheprovider -n 2 $(NBVAL) --one-core \
		$(MEASURED_NOTEBOOKS:%=notebooks/%.ipynb) $(BESIDE_MEASURED)
	TEST_STAGE=browser $(BIN)/python -m pytest -p no:cacheprovider $(MEASURED_TESTS)
	@$(BIN)/python -c "from tutorial_lib.classroom import suite_times as s; print(s.total_sentence(s.complete_run(s.RUN_LOG)))"

# A class on a real JupyterHub (tests/test_hub.py, root only; .ci/run runs it): Unix accounts, PAM, nbgrader's exchange,
# Chromium. The hub's environment is kept under HUB_ROOT between runs; the course's wheel is reinstalled each run.
hub-test: $(STAMP)
	HUB_TEST=1 $(BIN)/python -m pytest -p no:cacheprovider -q -s tests/test_hub.py

# After a `make test` from a fresh clone: keep its time as the record (docs/make-test-times.json) that README.md and
# CONTRIBUTING.md state (`make navigation` writes them from it).
test-times: $(STAMP)
	$(BIN)/python -m tutorial_lib test-times

# The course as a student installs it, offline: the wheel built, installed into a fresh environment outside the
# checkout, `start` into a temporary folder, every notebook (NB="00_start_here 05_live_dashboard" for some) under
# nbval there, then `doctor`.
test-installed: $(STAMP)
	INSTALLED_NOTEBOOKS="$(or $(NB),all)" $(BIN)/python -m pytest -p no:cacheprovider -s tests/test_installed.py

# Every exercise checker against its right answers and one wrong answer (mutant) per requirement.
check-checkers: $(STAMP)
	$(BIN)/python -m tutorial_lib check-checkers --cases tests $(EXERCISES)

data: $(STAMP)
	$(BIN)/python -m tutorial_lib data build

data-verify: $(STAMP)
	$(BIN)/python -m tutorial_lib data verify

notebooks: $(STAMP) navigation
	$(BIN)/python -m tutorial_lib notebooks $(NB)

# Every notebook, fresh kernels, under: normal, one core, a background load, a model step 4x slower and 4x cheaper.
machines: $(STAMP)
	$(BIN)/python -m tutorial_lib notebooks $(NB) --machine $(or $(SETTINGS),all) --repeat $(or $(TIMES),1) \
		--report out/machines/report.md

navigation: $(STAMP)
	$(BIN)/python -m tutorial_lib navigation

student-edition: $(STAMP)
	$(BIN)/python -m tutorial_lib student-edition $(or $(OUT),out/student)

# The course as a static website in out/site (OUT=dir): the committed notebooks with their outputs, nothing run.
site: $(STAMP)
	$(BIN)/python -m tutorial_lib site $(or $(OUT),out/site)

nbgrader: $(STAMP)
	$(BIN)/python -m tutorial_lib nbgrader $(or $(OUT),out/nbgrader)

nbgrader-check: $(STAMP)
	$(BIN)/python -m tutorial_lib nbgrader-check $(or $(OUT),out/nbgrader-check) --grader $(or $(GRADER),trusted)

bench: $(STAMP)
	$(BIN)/python -m tutorial_lib bench pipelines

bench-monitor: $(STAMP)
	$(BIN)/python -m tutorial_lib bench monitor

lint: $(STAMP)
	$(BIN)/ruff check tutorial_lib tests notebooks

# The migration report of your own TF1 code: make migrate PATHS="old_code/ train.py" (FORMAT=json|markdown).
migrate: $(STAMP)
	$(BIN)/python -m tutorial_lib migrate $(or $(PATHS),notebooks) --format $(or $(FORMAT),text)

doctor: $(STAMP)
	$(BIN)/python -m tutorial_lib doctor

clean:
	rm -rf $(VENV) $(STUDENT_VENV) .pytest_cache .ruff_cache
