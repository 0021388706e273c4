"""Start one untrusted program in a fresh, limited process; never imported by creval itself.

``python -I -S _launcher.py STATUS_FD key=value ...`` (see ``creval.sandbox.execute``), or
:func:`launch` in a child forked by the long-lived spawner (``_spawner.py``), which loads
this file once. This file is trusted code run by the sandbox's own interpreter; it imports
nothing from creval and as little as possible from the standard library, because its
start-up time is paid on every execution of the per-run path. Steps:

1. In ``namespace`` mode, unshare mount, network, pid, IPC and UTS namespaces (and, when
   not root, a user namespace first).
2. Fork. The child (pid 1 of the new pid namespace) builds a minimal read-only root on a
   tmpfs (``/usr``, the interpreter's prefix, a few ``/dev`` nodes, a fresh ``/proc``, a
   size-capped writable ``/scratch`` and ``/tmp``), pivots into it, drops to an
   unprivileged uid, sets the resource limits and execs the interpreter. As root under the
   spawner, step 1 starts instead from a copy of the spawner's template mount namespace,
   whose root already is that read-only view, and the child only mounts its own writable
   tmpfs (on ``/.rw``, mode 700, bound at ``/scratch``, ``/tmp``, ``/dev/shm``), the
   program and ``/proc``: no per-run binds, pivot_root or umount.
3. The parent waits for the child, the wall-clock deadline or SIGTERM (a kill request),
   kills whatever is left and writes ``key=value`` lines to STATUS_FD. In a pid namespace
   the sandbox's init writes the program's outcome itself as soon as the program is done.
   A complete report ends with the line ``end``: creval stops reading there, without
   waiting for the namespaces to be torn down.

Stdin/stdout/stderr are inherited from the caller and belong to the program.
"""

from __future__ import annotations

import _signal  # the C module: ``signal`` would import enum and cost milliseconds
import os
import resource
import sys
import time

UID_BASE = 3_000_000_000  # the program runs as UID_BASE + this launcher's pid (unique)
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41}
BOOT = (
    "import sys,builtins;builtins.exit=builtins.quit=sys.exit;p=sys.argv[1];sys.argv=[p];"
    "exec(compile(open(p,'rb').read(),p,'exec'),{'__name__':'__main__','__file__':p,"
    "'__builtins__':builtins})"
)
ENV_PATH = "/usr/local/bin:/usr/bin:/bin"
END = "end\n"  # the last line of a complete report: creval stops reading the status there
WATCHED = [_signal.SIGCHLD, _signal.SIGTERM, _signal.SIGINT]  # SIGTERM/SIGINT: kill requests


class Libc:
    """The few libc calls the os module lacks (loaded lazily: ctypes costs start-up time)."""

    def __init__(self) -> None:
        import ctypes

        self.ctypes = ctypes
        self.lib = ctypes.CDLL(None, use_errno=True)

    def check(self, result: int, what: str) -> None:
        if result != 0:
            err = self.ctypes.get_errno()
            raise OSError(err, f"{what}: {os.strerror(err)}")

    def unshare(self, flags: int) -> None:
        self.check(self.lib.unshare(flags), "unshare")

    def mount(self, source: str | None, target: str, fstype: str | None, flags: int,
              data: str | None = None) -> None:
        enc = [None if s is None else s.encode() for s in (source, target, fstype, data)]
        result = self.lib.mount(enc[0], enc[1], enc[2], self.ctypes.c_ulong(flags), enc[3])
        self.check(result, f"mount {source} on {target}")

    def setns(self, fd: int, kind: int) -> None:
        self.check(self.lib.setns(fd, kind), "setns")

    def umount(self, target: str) -> None:
        self.check(self.lib.umount2(target.encode(), MNT_DETACH), f"umount {target}")

    def prctl(self, option: int, value: int) -> None:
        args = [self.ctypes.c_ulong(v) for v in (value, 0, 0, 0)]
        self.check(self.lib.prctl(option, *args), "prctl")

    def pivot_root(self, new_root: str) -> None:
        number = SYS_PIVOT_ROOT.get(os.uname().machine)
        os.chdir(new_root)
        if number is None:  # no syscall number known: move the root and chroot into it
            self.mount(new_root, "/", None, MS_MOVE)
            os.chroot(".")
        else:
            self.check(self.lib.syscall(number, b".", b"."), "pivot_root")
            self.umount(".")  # the old root, stacked under the new one
        os.chdir("/")


def parse(argv: list[str]) -> dict[str, str]:
    return dict(arg.split("=", 1) for arg in argv)


def ro_bind(libc: Libc, source: str, target: str) -> None:
    """Bind ``source`` read-only at ``target``, keeping flags a user namespace locks."""
    libc.mount(source, target, None, MS_BIND | MS_REC)
    kept = os.statvfs(source).f_flag & (MS_NODEV | MS_NOEXEC)
    libc.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | kept)


def mirror(libc: Libc, root: str, path: str) -> None:
    """Make host ``path`` (a directory, file or symlink) visible read-only under ``root``."""
    if not os.path.lexists(path):
        return
    target = root + path
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.islink(path):
        os.symlink(os.readlink(path), target)
        return
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    else:
        open(target, "w").close()  # noqa: SIM115  (an empty mount point)
    ro_bind(libc, path, target)


SYSTEM = ("/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc/ld.so.cache", "/etc/localtime")
RW = "/.rw"  # in a template root: where a run's writable tmpfs is mounted (mode 700, root's)


def spare_dirs(binds: list[str]) -> list[str]:
    """Host directories usable as temporary mount points (none holds a bind source)."""
    return [d for d in ("/mnt", "/run", "/media", "/srv", "/opt", "/tmp") if os.path.isdir(d)
            and not any((b + "/").startswith(d + "/") for b in binds)]


def system_view(libc: Libc, root: str, binds: str) -> None:
    """Mount a tmpfs at ``root`` showing the system, the interpreter and a few ``/dev`` nodes."""
    libc.mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=755")
    for path in (*SYSTEM, *binds.split(":")):
        if path and not os.path.exists(root + path):
            mirror(libc, root, path)
    for dev in ("null", "zero", "random", "urandom"):
        mirror(libc, root, "/dev/" + dev)


def build_template(libc: Libc, binds: str) -> None:
    """In a fresh mount namespace, pivot into the read-only system view with empty mount points.

    The spawner keeps this namespace (root only) and each run starts from a copy of it, so
    a run only mounts its own writable tmpfs and ``/proc`` (see :func:`fill_template`).
    """
    libc.unshare(CLONE_NEWNS)
    libc.mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = spare_dirs(["/usr", "/etc", *binds.split(":")])[0]
    system_view(libc, root, binds)
    for inside in ("/scratch", "/tmp", "/dev/shm", "/proc", "/.sandbox", RW):
        os.makedirs(root + inside, exist_ok=True)
    libc.mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    libc.pivot_root(root)


def fill_template(libc: Libc, cfg: dict[str, str], uid: int, gid: int) -> None:
    """In this run's copy of the template: its own writable tmpfs, ``/proc`` and the program."""
    libc.mount(None, "/", None, MS_REC | MS_PRIVATE)
    size = f"size={cfg['scratch_bytes']},nr_inodes=16384,mode=700"
    libc.mount("tmpfs", RW, "tmpfs", MS_NOSUID | MS_NODEV, size)
    for name, inside in (("scratch", "/scratch"), ("tmp", "/tmp"), ("shm", "/dev/shm")):
        os.mkdir(f"{RW}/{name}", 0o700)
        os.chown(f"{RW}/{name}", uid, gid)
        libc.mount(f"{RW}/{name}", inside, None, MS_BIND)
    os.mkdir(RW + "/sandbox")
    os.chmod(RW + "/sandbox", 0o755)
    with open(RW + "/sandbox/main.py", "wb") as dst:
        dst.write(read_all(int(cfg["program_fd"])))
    os.chmod(RW + "/sandbox/main.py", 0o644)
    libc.mount(RW + "/sandbox", "/.sandbox", None, MS_BIND)
    libc.mount(None, "/.sandbox", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    libc.mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def build_root(libc: Libc, cfg: dict[str, str], uid: int, gid: int) -> None:
    """Pivot into a fresh tmpfs root that shows only the system and the interpreter."""
    if cfg.get("template") == "1":
        fill_template(libc, cfg, uid, gid)
        return
    spare = spare_dirs(["/usr", "/etc", *cfg["binds"].split(":")])
    root = spare[0]
    libc.mount(None, "/", None, MS_REC | MS_PRIVATE)
    system_view(libc, root, cfg["binds"])
    # the writable tmpfs goes on a spare directory of the old root, which pivot_root's one
    # umount detaches with the rest (each umount waits for an RCU grace period: milliseconds)
    rw = spare[1] if len(spare) > 1 else root + "/.rw"
    if rw.startswith(root):
        os.mkdir(rw)
    size = f"size={cfg['scratch_bytes']},nr_inodes=16384,mode=755"
    libc.mount("tmpfs", rw, "tmpfs", MS_NOSUID | MS_NODEV, size)
    for name, inside in (("scratch", "/scratch"), ("tmp", "/tmp"), ("shm", "/dev/shm")):
        os.mkdir(f"{rw}/{name}", 0o700)
        os.chown(f"{rw}/{name}", uid, gid)
        os.makedirs(root + inside, exist_ok=True)
        libc.mount(f"{rw}/{name}", root + inside, None, MS_BIND)
    if rw.startswith(root):
        libc.umount(rw)
        os.rmdir(rw)
    os.mkdir(root + "/proc")
    libc.mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.mkdir(root + "/.sandbox")
    with open(root + "/.sandbox/main.py", "wb") as dst:
        dst.write(read_all(int(cfg["program_fd"])))
    libc.mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    libc.pivot_root(root)


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def set_limits(cfg: dict[str, str], extra_processes: int) -> None:
    cpu = int(cfg["cpu"])
    nproc = int(cfg["nproc"]) + extra_processes
    for kind, soft, hard in (
        (resource.RLIMIT_CPU, cpu, cpu + 1),  # SIGXCPU at soft, SIGKILL at hard
        (resource.RLIMIT_AS, int(cfg["as_bytes"]), int(cfg["as_bytes"])),
        (resource.RLIMIT_FSIZE, int(cfg["fsize"]), int(cfg["fsize"])),
        (resource.RLIMIT_NPROC, nproc, nproc),
        (resource.RLIMIT_NOFILE, 256, 256),
        (resource.RLIMIT_CORE, 0, 0),
    ):
        resource.setrlimit(kind, (soft, hard))


def enter_sandbox(cfg: dict[str, str], libc: Libc, uid: int, gid: int) -> tuple[str, str]:
    """Build the file system view (namespace mode), drop privileges; return (scratch, main)."""
    if cfg["mode"] == "namespace":
        build_root(libc, cfg, uid, gid)
        scratch, main = "/scratch", "/.sandbox/main.py"
    else:
        os.setsid()
        scratch, main = cfg["jobdir"] + "/scratch", cfg["jobdir"] + "/main.py"
        if os.getuid() == 0:
            os.chown(scratch, uid, gid)
    os.chdir(scratch)
    if os.getuid() == 0:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1)
    libc.prctl(PR_SET_PDEATHSIG, 9)  # after setuid, which clears it
    libc.prctl(PR_SET_DUMPABLE, 0)  # no ptrace by the program (same uid)
    return scratch, main


def program_command(cfg: dict[str, str], scratch: str, main: str) -> tuple[list[str], dict[str, str]]:
    """Set this process's resource limits; the program's argv and environment."""
    extra = 1 if cfg["mode"] == "namespace" else 0  # the sandbox's init shares the uid
    set_limits(cfg, extra)
    env = {"PATH": ENV_PATH, "HOME": scratch, "TMPDIR": "/tmp" if extra else scratch,
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    return [cfg["python"], "-I", "-S", "-B", "-c", BOOT, main], env


def exec_program(cfg: dict[str, str], scratch: str, main: str) -> None:
    argv, env = program_command(cfg, scratch, main)
    _signal.pthread_sigmask(_signal.SIG_SETMASK, [])
    os.execve(cfg["python"], argv, env)


def start_child(cfg: dict[str, str], libc: Libc, uid: int, gid: int, errpipe: int,
                status_fd: int) -> None:
    """Enter the sandbox and exec the program (or, in a pid namespace, become its init).

    Any failure is written to ``errpipe``; this never returns.
    """
    try:
        scratch, main = enter_sandbox(cfg, libc, uid, gid)
        if cfg["mode"] == "namespace":
            init(cfg, scratch, main, errpipe, status_fd)
        else:
            exec_program(cfg, scratch, main)
    except BaseException as exc:  # noqa: BLE001  (anything: report it, never run on)
        try:  # noqa: SIM105  (contextlib would cost start-up time)
            os.write(errpipe, f"{type(exc).__name__}: {exc}".encode()[:2000])
        except OSError:
            pass
    finally:
        os._exit(127)


def init(cfg: dict[str, str], scratch: str, main: str, errpipe: int, status_fd: int) -> None:
    """Pid 1 of the namespace: run the program as pid 2, reap orphans, report, exit.

    The program is not pid 1 so that signals (SIGXCPU, its own kill()) act normally; when
    this process exits, the kernel kills everything left in the namespace.
    """
    # the limits bind this init too (it needs little); posix_spawn (a vfork) copies no memory
    argv, env = program_command(cfg, scratch, main)
    pid = os.posix_spawn(cfg["python"], argv, env, setsigmask=())
    os.close(errpipe)
    wall = float(cfg["wall"])
    started = time.monotonic()
    reason, status, usage = supervise(pid, wall, started, [_signal.SIGCHLD], group=False)
    report = outcome(reason, status, usage, time.monotonic() - started) + END
    os.write(status_fd, report.encode())
    os._exit(0)


def unshare_namespaces(libc: Libc, cfg: dict[str, str]) -> None:
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
    if cfg["network"] != "1":
        flags |= CLONE_NEWNET
    uid, gid = os.getuid(), os.getgid()
    if uid != 0:  # an unprivileged user: a user namespace grants the rights to mount
        libc.unshare(CLONE_NEWUSER)
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
    elif "template_fd" in cfg:  # root, in the spawner: start from its read-only root view
        template = int(cfg.pop("template_fd"))
        libc.setns(template, CLONE_NEWNS)
        os.close(template)
        cfg["template"] = "1"
    libc.unshare(flags)


def reap_descendants() -> None:
    """Kill and reap every remaining descendant (they are re-parented to this subreaper)."""
    while True:
        try:
            done, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            continue
        for child in children():
            kill(child, False)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def children() -> list[int]:
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:  # no CONFIG_PROC_CHILDREN: scan /proc for our children
        found = []
        for name in os.listdir("/proc"):
            try:
                with open(f"/proc/{name}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == me:
                        found.append(int(name))
            except (OSError, ValueError, IndexError):
                continue
        return found


def supervise(pid: int, wall: float, started: float, watched: list[int],
              group: bool) -> tuple[str, int, resource.struct_rusage]:
    """Wait for ``pid`` until it exits, the wall clock runs out or SIGTERM/SIGINT ask for a kill.

    Other children (orphans re-parented to a namespace's init) are reaped on the way.
    """
    reason = "exited"
    while True:
        done, status, usage = os.wait4(-1, os.WNOHANG)
        if done == pid:
            return reason, status, usage
        if done:
            continue
        remaining = started + wall - time.monotonic()
        if remaining <= 0:
            reason = "timeout"
        else:
            info = _signal.sigtimedwait(watched, remaining)
            if info is None or info.si_signo == _signal.SIGCHLD:
                continue
            reason = "killed"
        kill(pid, group)
        _, status, usage = os.wait4(pid, 0)
        return reason, status, usage


def kill(pid: int, group: bool) -> None:
    try:  # noqa: SIM105
        os.killpg(pid, 9) if group else os.kill(pid, 9)
    except ProcessLookupError:
        pass


def outcome(reason: str, status: int, usage: resource.struct_rusage, wall: float) -> str:
    lines = [f"reason={reason}", f"wall={wall:.6f}",
             f"cpu={usage.ru_utime + usage.ru_stime:.6f}", f"rss_kb={usage.ru_maxrss}"]
    if os.WIFSIGNALED(status):
        lines.append(f"signal={os.WTERMSIG(status)}")
    else:
        lines.append(f"exit={os.waitstatus_to_exitcode(status)}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    return launch(int(argv[0]), parse(argv[1:]), None)


def launch(status_fd: int, cfg: dict[str, str], libc: Libc | None) -> int:
    """Run one program as configured by ``cfg``; report to ``status_fd`` (see the module doc).

    Called by :func:`main` in a fresh interpreter, or by ``_spawner.py`` in a forked child
    (which passes the ``Libc`` it loaded once).
    """
    os.set_inheritable(status_fd, False)
    os.set_inheritable(int(cfg["program_fd"]), False)  # only the sandbox's set-up reads it
    namespace = cfg["mode"] == "namespace"
    _signal.pthread_sigmask(_signal.SIG_BLOCK, WATCHED)
    root = os.getuid() == 0
    uid = UID_BASE + os.getpid() if root else os.getuid()
    gid = uid if root else os.getgid()
    try:
        libc = libc or Libc()
        if namespace:
            unshare_namespaces(libc, cfg)
        else:  # orphans of the program become this process's children, not init's
            libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
        errpipe_r, errpipe_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            start_child(cfg, libc, uid, gid, errpipe_w, status_fd)
        os.close(errpipe_w)
        error = os.read(errpipe_r, 4000).decode(errors="replace").replace("\n", " ")
        started = time.monotonic()
        # a namespace's init enforces the wall clock itself and reports; this is a backstop
        wall = float(cfg["wall"]) + (1.0 if namespace else 0.0)
        reason, status, usage = supervise(pid, wall, started, WATCHED, group=not namespace)
        elapsed = time.monotonic() - started
        if not namespace:  # the program's group, then every other descendant (all re-parented here)
            kill(pid, True)
            reap_descendants()
    except OSError as exc:
        error = str(exc)
    report = f"uid={uid}\n"
    if error:
        report += f"setup_error={error}\n"
    elif not namespace or reason != "exited":
        report += outcome(reason, status, usage, elapsed)
    elif os.waitstatus_to_exitcode(status) != 0:
        report += f"setup_error=the sandbox's init failed (status {status})\n"
    os.write(status_fd, (report + END).encode())
    return 0


if __name__ == "__main__":
    os._exit(main(sys.argv[1:]))  # skip interpreter shutdown: it costs milliseconds per run
