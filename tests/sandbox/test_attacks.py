"""Each attack really runs in the sandbox; the test checks the verdict and the host's health."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

import pytest

from creval.sandbox import Limits, Verdict, run

from .helpers import SMALL, assert_healthy, first_line_uid

REPO = Path(__file__).resolve().parents[2]
PRINT_UID = "import os, sys\nprint(os.getuid(), flush=True)\n"


def test_fork_bomb_is_contained(level: dict[str, str]) -> None:
    bomb = PRINT_UID + "while True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    result = run(bomb, limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.TIMEOUT, result
    assert result.wall_seconds < SMALL.wall_seconds + 2
    assert_healthy(level, uid=first_line_uid(result))


def test_process_limit_stops_forking(level: dict[str, str]) -> None:
    counting = PRINT_UID + (
        "import time\nmade = 0\n"
        "for _ in range(200):\n"
        "    try:\n        pid = os.fork()\n    except OSError:\n        break\n"
        "    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n"
        "    made += 1\n"
        "print(made)\n"
    )
    result = run(counting, limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OK, result
    made = int(result.stdout.splitlines()[1])
    assert 0 < made < SMALL.processes  # the limit, not the loop, ended the forking
    assert_healthy(level, uid=first_line_uid(result))  # the sleeping children were killed


def test_escaped_daemon_is_killed(level: dict[str, str]) -> None:
    daemon = PRINT_UID + (
        "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        "        import time\n        time.sleep(60)\n    os._exit(0)\n"
    )
    result = run(daemon, limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OK, result
    assert_healthy(level, uid=first_line_uid(result))


def test_memory_bomb_is_a_memory_limit(level: dict[str, str]) -> None:
    bomb = "blocks = []\nwhile True:\n    blocks.append(bytearray(10_000_000))\n"
    result = run(bomb, limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.MEMORY_LIMIT, result
    assert result.max_rss_mb <= SMALL.memory_mb
    assert_healthy(level)


def test_infinite_loop_times_out(level: dict[str, str]) -> None:
    limits = Limits(cpu_seconds=1, wall_seconds=2.5, processes=8)
    result = run("while True:\n    pass\n", limits=limits, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.TIMEOUT, result
    assert result.wall_seconds < limits.wall_seconds + 1
    assert_healthy(level)


def test_sleeping_program_hits_the_wall_clock(level: dict[str, str]) -> None:
    limits = Limits(wall_seconds=1, processes=8)
    result = run("import time\ntime.sleep(60)\n", limits=limits, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.TIMEOUT and "wall clock" in result.detail, result
    assert result.wall_seconds < 2.5


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_flood_is_cut(level: dict[str, str], stream: str) -> None:
    flood = f"import sys\nwhile True:\n    sys.{stream}.write('x' * 1000 + '\\n')\n"
    result = run(flood, limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OUTPUT_LIMIT, result
    assert getattr(result, f"{stream}_truncated")
    assert len(getattr(result, stream)) == SMALL.output_bytes
    assert result.wall_seconds < SMALL.wall_seconds  # killed at the cap, not at the deadline
    assert_healthy(level)


def test_killing_the_parent_fails(level: dict[str, str]) -> None:
    attack = (
        "import os, signal\nme = int(input())\n"
        "for target in (os.getppid(), me, -1):\n"
        "    try:\n        os.kill(target, signal.SIGKILL)\n"
        "    except OSError as exc:\n        print(target, type(exc).__name__)\n"
        "print('still here')\n"
    )
    result = run(attack, stdin=f"{os.getpid()}\n", limits=SMALL, **level)  # type: ignore[arg-type]
    # this test process (the creval side) is alive, and the sandbox's supervisor reported
    assert result.verdict is Verdict.OK, result
    assert result.stdout.endswith("still here\n")
    assert f"{os.getpid()} " in result.stdout  # killing creval's pid raised an error
    assert_healthy(level)


def test_writes_outside_scratch_fail(level: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("original")
    probe_in_repo = REPO / "sandbox_escape_probe.txt"
    attack = (
        "import json, sys\npaths = json.loads(sys.stdin.read())\n"
        "for path in paths:\n"
        "    try:\n        open(path, 'w').write('pwned')\n        print('wrote', path)\n"
        "    except OSError as exc:\n        print('blocked', path, type(exc).__name__)\n"
        "open('mine.txt', 'w').write('scratch is writable')\n"
        "print(open('mine.txt').read())\n"
    )
    import json

    paths = [str(target), str(tmp_path / "new.txt"), str(probe_in_repo), str(REPO / "README.md")]
    result = run(attack, stdin=json.dumps(paths), limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OK, result
    assert "wrote" not in result.stdout and result.stdout.count("blocked") == len(paths)
    assert "scratch is writable" in result.stdout
    assert target.read_text() == "original"
    assert not (tmp_path / "new.txt").exists() and not probe_in_repo.exists()
    assert "pwned" not in (REPO / "README.md").read_text()


def test_user_files_are_invisible(namespace: dict[str, str]) -> None:
    folder = tempfile.mkdtemp(prefix="creval-visible-")  # world-readable on purpose
    try:
        os.chmod(folder, 0o755)
        secret = Path(folder, "secret.txt")
        secret.write_text("the user's data")
        secret.chmod(0o644)
        spy = (
            "import os, sys\n"
            "for path in sys.stdin.read().split():\n"
            "    print(path, os.path.exists(path))\n"
            "print(sorted(os.listdir('/')))\nprint(os.listdir('.'))\n"
        )
        paths = [str(secret), str(REPO / "pyproject.toml"), "/work", "/home", os.path.expanduser("~/.bashrc")]
        result = run(spy, stdin=" ".join(paths), limits=SMALL, **namespace)  # type: ignore[arg-type]
        assert result.verdict is Verdict.OK, result
        lines = result.stdout.splitlines()
        assert lines[: len(paths)] == [f"{p} False" for p in paths]
        assert "work" not in lines[-2] and "home" not in lines[-2]
        assert lines[-1] == "[]"  # the scratch directory starts empty
    finally:
        Path(folder, "secret.txt").unlink()
        os.rmdir(folder)


def test_system_is_read_only(namespace: dict[str, str]) -> None:
    attack = (
        "for path in ('/usr/pwned', '/etc/pwned', '/pwned', '/.sandbox/main.py'):\n"
        "    try:\n        open(path, 'w')\n        print('wrote', path)\n"
        "    except OSError as exc:\n        print(type(exc).__name__)\n"
    )
    result = run(attack, limits=SMALL, **namespace)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OK, result
    assert "wrote" not in result.stdout and len(result.stdout.splitlines()) == 4
    assert not Path("/usr/pwned").exists()


def test_network_is_unreachable(namespace: dict[str, str], listening_socket: tuple[socket.socket, int]) -> None:
    server, port = listening_socket
    attack = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('connected')\n"
    result = run(attack, limits=SMALL, **namespace)  # type: ignore[arg-type]
    assert result.verdict is Verdict.RUNTIME_ERROR and "connected" not in result.stdout, result
    assert "OSError" in result.stderr or "Error" in result.stderr
    with pytest.raises(BlockingIOError):
        server.accept()  # nobody ever connected


def test_network_can_be_allowed(namespace: dict[str, str], listening_socket: tuple[socket.socket, int]) -> None:
    _, port = listening_socket
    program = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('connected')\n"
    limits = Limits(wall_seconds=5, network=True)
    result = run(program, limits=limits, **namespace)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OK and result.stdout == "connected\n", result


def test_writing_a_huge_file_is_refused(level: dict[str, str]) -> None:
    program = "open('big', 'wb').write(b'0' * (8 << 20))\n"  # twice SMALL.file_size_mb
    result = run(program, limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.RUNTIME_ERROR and "File too large" in result.stderr, result


def test_scratch_space_is_capped(namespace: dict[str, str]) -> None:
    program = "i = 0\nwhile True:\n    open(f'f{i}', 'wb').write(b'0' * (2 << 20))\n    i += 1\n"
    result = run(program, limits=SMALL, **namespace)  # type: ignore[arg-type]
    assert result.verdict is Verdict.RUNTIME_ERROR and "No space left" in result.stderr, result
