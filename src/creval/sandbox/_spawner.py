"""The long-lived trusted spawner: fork one launcher per request; run as a script, never imported.

``python -I -S -B _spawner.py CONTROL_FD`` (started by ``creval.sandbox.spawner``). It loads
``_launcher.py`` and ``ctypes`` once, then serves requests on the control socket (a
``SOCK_SEQPACKET`` socketpair whose other end only the creval process holds). A request is
one message: the launcher's settings as NUL-separated ``key=value`` text plus six file
descriptors (``SCM_RIGHTS``): a reply socket, the program's stdin, stdout and stderr, the
status pipe and the program memfd. For each request the spawner forks a child that does
exactly what a per-run ``_launcher.py`` does (namespaces, mounts, uid drop, limits, exec of
the program's interpreter, supervision, report), then replies ``ok`` with a pidfd of that
child, through which creval asks for kills. The spawner itself never runs program code and
never waits on a program: it only forks, replies and reaps its children (through their
pidfds), so it serves concurrent requests. As root, on the first namespace-mode request per
interpreter it has a short-lived child build a template mount namespace (the read-only
root view, ``build_template``) and keeps an fd of it; each such request's child enters a
private copy of it instead of building the view itself.

Lifetime: the spawner exits when the control socket reaches EOF (every copy of creval's end
is closed, i.e. creval exited or died) or when it is re-parented (creval died); each child
gets ``SIGKILL`` when the spawner dies (``PR_SET_PDEATHSIG``), and each child's own sandbox
dies with it as in the per-run path. SIGCHLD, SIGTERM and SIGINT stay blocked here, so
children start with the mask the launcher wants and a terminal's Ctrl-C reaches the
launchers (as kill requests), not the spawner.
"""

from __future__ import annotations

import _signal
import array
import importlib.util
import os
import select
import socket
import sys
from types import ModuleType

FD_COUNT = 6  # reply socket, stdin, stdout, stderr, status pipe, program memfd
POLL_SECONDS = 1.0  # how often the parent's liveness is checked besides EOF


def load_launcher() -> ModuleType:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_launcher.py")
    spec = importlib.util.spec_from_file_location("creval_sandbox_launcher", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def receive(control: socket.socket) -> tuple[bytes, list[int], bool]:
    """One request: its header, its descriptors (close-on-exec) and whether it arrived whole."""
    space = socket.CMSG_SPACE(FD_COUNT * array.array("i").itemsize)
    data, ancillary, flags, _ = control.recvmsg(65536, space, socket.MSG_CMSG_CLOEXEC)
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    whole = not flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) and len(fds) == FD_COUNT
    return data, list(fds), whole


def child(launcher: ModuleType, libc: object, header: bytes, fds: list[int], spawner: int,
          closing: list[int], template: int) -> int:
    """In the forked child: die with the spawner, wire the fds, run the launcher."""
    libc.prctl(launcher.PR_SET_PDEATHSIG, 9)  # type: ignore[attr-defined]
    if os.getppid() != spawner:  # the spawner died before the line above
        return 1
    for fd in closing:  # the control socket, the reply socket, other children's pidfds, templates
        os.close(fd)
    _, stdin, stdout, stderr, status, program = fds
    for source, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(source, target)
        os.close(source)
    cfg = launcher.parse(header.decode().split("\0"))
    cfg["program_fd"] = str(program)
    if template >= 0:
        cfg["template_fd"] = str(template)
    return int(launcher.launch(status, cfg, libc))


def make_template(launcher: ModuleType, libc: object, binds: str) -> int:
    """A mount namespace (as an fd) whose root is the sandbox's read-only view; root only.

    A short-lived child builds it (``build_template``) and waits until the fd is open.
    """
    ready_r, ready_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(ready_r)
            os.close(hold_w)
            launcher.build_template(libc, binds)
            os.write(ready_w, b"k")
            os.read(hold_r, 1)  # EOF once the spawner holds the namespace
            code = 0
        finally:
            os._exit(code)
    os.close(ready_w)
    os.close(hold_r)
    try:
        if os.read(ready_r, 1) != b"k":
            raise OSError("the template mount namespace could not be built")
        return os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(ready_r)
        os.close(hold_w)
        os.waitpid(pid, 0)


def template_for(launcher: ModuleType, libc: object, header: bytes,
                 templates: dict[str, int]) -> int:
    """The template namespace fd for a root namespace-mode request, or -1 (build per run)."""
    cfg = launcher.parse(header.decode().split("\0"))
    if os.getuid() != 0 or cfg.get("mode") != "namespace":
        return -1
    binds = cfg.get("binds", "")
    if binds not in templates:
        try:
            templates[binds] = make_template(launcher, libc, binds)
        except OSError:
            templates[binds] = -1  # never retried: the per-run build still works
    return templates[binds]


def fork_launcher(launcher: ModuleType, libc: object, control: socket.socket, header: bytes,
                  fds: list[int], children: set[int], templates: dict[str, int]) -> int:
    """Fork the child that runs one request; return a pidfd of it."""
    template = template_for(launcher, libc, header, templates)
    spawner = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 127
        try:
            others = [fd for fd in templates.values() if fd not in (-1, template)]
            closing = [control.fileno(), fds[0], *children, *others]
            code = child(launcher, libc, header, fds, spawner, closing, template)
        finally:
            os._exit(code)  # never return into the serving loop
    try:
        return os.pidfd_open(pid)  # the child is not reaped yet, so this is the right process
    except OSError:  # no pidfd (out of fds?): nobody could kill or reap the child later
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise


def serve_one(launcher: ModuleType, libc: object, control: socket.socket, header: bytes,
              fds: list[int], children: set[int], poller: select.poll,
              templates: dict[str, int]) -> None:
    """Fork a launcher for one request, reply with its pidfd (or an error), close the fds."""
    try:
        reply = socket.socket(fileno=fds[0])
    except OSError:  # not a socket: nobody to answer
        for fd in fds:
            os.close(fd)
        return
    pidfd = -1
    try:
        reply.setblocking(False)
        pidfd = fork_launcher(launcher, libc, control, header, fds, children, templates)
        children.add(pidfd)
        poller.register(pidfd, select.POLLIN)
        socket.send_fds(reply, [b"ok"], [pidfd])
    except OSError as exc:
        try:  # creval cannot kill a child it has no pidfd of: kill it here
            if pidfd >= 0:
                _signal.pidfd_send_signal(pidfd, _signal.SIGKILL)
            reply.send(f"error {type(exc).__name__}: {exc}".encode()[:2000])
        except OSError:
            pass
    finally:
        reply.close()
        for fd in fds[1:]:
            os.close(fd)


def reap(pidfd: int, children: set[int], poller: select.poll) -> None:
    """Reap the exited child behind ``pidfd`` (creval keeps its own pidfd for kills)."""
    poller.unregister(pidfd)
    children.discard(pidfd)
    os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
    os.close(pidfd)


def serve(control_fd: int) -> int:
    parent = os.getppid()
    _signal.pthread_sigmask(_signal.SIG_BLOCK, [_signal.SIGCHLD, _signal.SIGTERM, _signal.SIGINT])
    control = socket.socket(fileno=control_fd)
    try:
        launcher = load_launcher()
        libc = launcher.Libc()
        os.close(os.pidfd_open(os.getpid()))  # pidfds work on this kernel
    except (OSError, ImportError, AttributeError) as exc:
        control.send(f"error {type(exc).__name__}: {exc}".encode()[:2000])
        return 1
    children: set[int] = set()  # a pidfd of each live launcher child
    templates: dict[str, int] = {}  # interpreter binds -> template mount namespace fd (or -1)
    poller = select.poll()
    poller.register(control.fileno(), select.POLLIN)
    control.send(b"ready")
    while os.getppid() == parent:
        for fd, _ in poller.poll(POLL_SECONDS * 1000):
            if fd in children:
                reap(fd, children, poller)
                continue
            header, fds, whole = receive(control)
            if not header and not fds:  # EOF: creval is gone
                return 0
            if whole:
                serve_one(launcher, libc, control, header, fds, children, poller, templates)
            else:  # a malformed request: drop it (closing its reply socket tells creval)
                for extra in fds:
                    os.close(extra)
    return 0


if __name__ == "__main__":
    os._exit(serve(int(sys.argv[1])))
