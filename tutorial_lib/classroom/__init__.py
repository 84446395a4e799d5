"""Course tooling: what instructors and CI run on the notebooks, not what students call.

* `course` -- the course map (`COURSE`, defined only here), the notebook files and their cells;
* `navigation` -- the generated navigation cells (`make navigation`);
* `study_time` -- how long each notebook takes, estimated from its contents (written by `make navigation`);
* `edition` -- the student edition: solutions become stubs (`make student-edition`);
* `nbval_student` -- a pytest plugin: during nbval, each exercise's stub and checker run before its solution;
* `execute` -- run notebooks in place (`make notebooks`) or N times to measure their spread;
* `machines` -- run them as on other machines: one core, a background load, a model step 4x slower or cheaper
  (`make machines`; `make test` runs 05 and 06 on one core);
* `nbgrader_course` -- the course as nbgrader assignments (`make nbgrader`) and their round-trip check.

The names tests and tools use most are also available here as `classroom.<name>`.
"""

from tutorial_lib.classroom.course import (  # noqa: F401
    COURSE,
    NOTEBOOK_DIR,
    NOTEBOOK_GLOB,
    SUMMARIES,
    course_table,
    course_table_problems,
    notebook_paths,
    read,
    source,
    tags,
    write,
    write_course_tables,
)
from tutorial_lib.classroom.edition import STUB_NOTE, stub_for, student_edition, student_notebook  # noqa: F401
from tutorial_lib.classroom.navigation import (  # noqa: F401
    navigation_cells,
    navigation_problems,
    with_navigation,
    write_navigation,
)
from tutorial_lib.classroom.study_time import study_time_problems, write_study_times  # noqa: F401
