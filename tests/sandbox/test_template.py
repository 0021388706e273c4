"""Runs that start from the spawner's template namespace keep their writable space to themselves."""

from __future__ import annotations

from creval.sandbox import Job, Verdict, run, run_many

from .helpers import SMALL

WRITER = (
    "import os, time\nopen('mine', 'w').write('a')\nopen('/tmp/mine', 'w').write('b')\n"
    "open('/dev/shm/mine', 'w').write('c')\ntime.sleep(1.5)\nprint(sorted(os.listdir('.')))\n"
)
SPY = (
    "import os, time\ntime.sleep(0.5)\n"
    "print(os.listdir('.'), os.listdir('/tmp'), os.listdir('/dev/shm'))\n"
    "try:\n    print(os.listdir('/.rw'))\nexcept OSError as exc:\n    print(type(exc).__name__)\n"
)


def test_concurrent_runs_do_not_share_scratch(namespace: dict[str, str]) -> None:
    writer, spy = run_many([Job(WRITER, limits=SMALL), Job(SPY, limits=SMALL)], workers=2,
                           **namespace)  # type: ignore[arg-type]
    assert writer.verdict is Verdict.OK and writer.stdout == "['mine']\n", writer
    assert spy.verdict is Verdict.OK, spy
    lines = spy.stdout.splitlines()
    assert lines[0] == "[] [] []", spy
    assert lines[1] in ("PermissionError", "FileNotFoundError"), spy  # the tmpfs holding them


def test_scratch_is_fresh_after_a_run_that_filled_it(namespace: dict[str, str]) -> None:
    run("open('left', 'w').write('x')\nopen('/tmp/left', 'w').write('y')\n", limits=SMALL,
        **namespace)  # type: ignore[arg-type]
    after = run("import os\nprint(os.listdir('.'), os.listdir('/tmp'))", limits=SMALL,
                **namespace)  # type: ignore[arg-type]
    assert after.stdout == "[] []\n", after
