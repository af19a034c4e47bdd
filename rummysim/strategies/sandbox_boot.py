"""The sandbox's first process: builds a sealed bot's world, then starts the bot's server in it (Linux).

Run by `rummysim.strategies.sandbox` inside new user, mount, network and PID namespaces
(``unshare``), as ``python -I -S sandbox_boot.py CONFIG``: standard library only, so it
imports nothing from the machine it is about to hide. It

1. mounts a small tmpfs as the new root, binds into it, read-only, only what the bot's
   server needs: Python, its libraries, the rummysim package and the bot's own files; a
   few devices; a /proc of the new PID namespace (no other process is in it);
2. pivots into that root and detaches the old one, so no path leads back to it;
3. forks the server and, in it: sets the limits (memory, CPU time, open files, file size),
   forbids new processes (seccomp, where libseccomp is installed), drops every
   capability, and executes the server with a scrubbed environment;
4. stays as the namespace's init: it reaps, and exits as the server did (128 + signal if
   a signal ended it), which ends every process of the namespace with it.

CONFIG is JSON: ``binds`` (absolute paths), ``cwd``, ``argv``, ``env``, ``limits``
(``memory_mib``, ``cpu_seconds``, ``open_files``, ``file_mib``, ``scratch_mib``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import resource
import sys

_libc = ctypes.CDLL(None, use_errno=True)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    1, 2, 4, 8, 32, 4096, 16384, 1 << 18,
)  # fmt: skip
MNT_DETACH = 2
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
"""pivot_root's system call number on each machine (the C library has no wrapper for it)."""
PR_CAPBSET_DROP = 24
CLONE_THREAD = 0x00010000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_EQ, SCMP_CMP_MASKED_EQ = 4, 7
TIOCSTI = 0x5412
ROOT = "/tmp/.rummysim-sandbox-root"
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    _check(
        _libc.mount(
            source.encode() if source else None, target.encode(), kind.encode() if kind else None, flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )  # fmt: skip


_BOUND: list[str] = []
"""The paths bound so far, read-only: what lies under them is seen already."""


def _bind(path: str, *, writable: bool = False) -> None:
    """Bind `path` at the same path under the new root, read-only unless `writable`."""
    if any(path == done or path.startswith(done.rstrip("/") + "/") for done in _BOUND):
        return  # already seen through a folder bound before (a module inside site-packages, say)
    _BOUND.append(path)
    target = ROOT + path
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    _mount(path, target, None, MS_BIND | MS_REC)
    if not writable:
        _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_REC)


def build_root(binds: list[str], scratch_mib: int, cwd: str) -> None:
    """Make the new root: a tmpfs of `scratch_mib` holding read-only binds, devices, a private /proc and `cwd`."""
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(f"pivot_root's system call number is not known on {os.uname().machine}")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here leaks back to the machine
    os.makedirs(ROOT, exist_ok=True)
    _mount("tmpfs", ROOT, "tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch_mib}m,mode=755")
    for path in binds:
        if os.path.exists(path):
            _bind(path)
    for device in DEVICES:
        if os.path.exists(device):
            _bind(device, writable=True)
    os.makedirs(ROOT + "/proc")
    _mount("proc", ROOT + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.makedirs(ROOT + "/tmp", mode=0o1777, exist_ok=True)
    os.makedirs(ROOT + cwd, exist_ok=True)  # the run's folder, empty: a plug-in's relative path is read from it
    os.makedirs(ROOT + "/.old")
    _check(_libc.syscall(number, ROOT.encode(), (ROOT + "/.old").encode()), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old", MNT_DETACH), "detaching the old root")
    os.rmdir("/.old")


def _no_new_processes(seccomp: ctypes.CDLL | None) -> bool:
    """Forbid fork, vfork and clone but of threads (EPERM; clone3: ENOSYS, so the C library falls back to clone);
    and what would let memory or a descriptor escape the limits, or reach a terminal: memfd_create, socket,
    socketpair (EPERM) and the ioctl TIOCSTI, which pushes keystrokes into a terminal."""
    if seccomp is None:
        return False

    class Compare(ctypes.Structure):
        _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]

    seccomp.seccomp_init.restype = ctypes.c_void_p
    context = ctypes.c_void_p(seccomp.seccomp_init(SCMP_ACT_ALLOW))
    errno_of = lambda code: 0x00050000 | code  # noqa: E731 - SCMP_ACT_ERRNO
    number = lambda name: seccomp.seccomp_syscall_resolve_name(name.encode())  # noqa: E731
    for name in ("fork", "vfork"):
        _check(seccomp.seccomp_rule_add_array(context, errno_of(1), number(name), 0, None), f"seccomp {name}")
    not_thread = Compare(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)
    _check(seccomp.seccomp_rule_add_array(context, errno_of(1), number("clone"), 1, ctypes.byref(not_thread)), "clone")
    _check(seccomp.seccomp_rule_add_array(context, errno_of(38), number("clone3"), 0, None), "seccomp clone3")
    for name in ("memfd_create", "socket", "socketpair"):
        _check(seccomp.seccomp_rule_add_array(context, errno_of(1), number(name), 0, None), f"seccomp {name}")
    push = Compare(1, SCMP_CMP_EQ, TIOCSTI, 0)
    _check(seccomp.seccomp_rule_add_array(context, errno_of(1), number("ioctl"), 1, ctypes.byref(push)), "ioctl")
    _check(seccomp.seccomp_load(context), "seccomp_load")
    return True


def _limit(limits: dict[str, int]) -> None:
    mib = 1 << 20
    for which, value in (
        (resource.RLIMIT_AS, limits["memory_mib"] * mib),
        (resource.RLIMIT_CPU, limits["cpu_seconds"]),
        (resource.RLIMIT_NOFILE, limits["open_files"]),
        (resource.RLIMIT_FSIZE, limits["file_mib"] * mib),
        (resource.RLIMIT_CORE, 0),
    ):
        hard = value + 5 if which == resource.RLIMIT_CPU else value  # SIGXCPU first, SIGKILL 5 s later
        resource.setrlimit(which, (value, hard))


def _drop_capabilities() -> None:
    """Empty the bounding set: the server, executed as the namespace's root, then holds no capability."""
    for capability in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and ctypes.get_errno() == 22:  # EINVAL: no more
            break


def main() -> None:
    config = json.loads(sys.argv[1])
    try:
        library = ctypes.util.find_library("seccomp")  # found before the machine is hidden
        seccomp = ctypes.CDLL(library, use_errno=True) if library else None
        build_root(config["binds"], config["limits"]["scratch_mib"], config["cwd"])
    except OSError as error:  # one line on stderr, then the channel closes
        print(f"sandbox: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        os._exit(70)
    child = os.fork()
    if child == 0:
        try:
            os.chdir(config["cwd"] if os.path.isdir(config["cwd"]) else "/tmp")
            _limit(config["limits"])
            if not _no_new_processes(seccomp) and config.get("require_seccomp"):
                raise OSError("libseccomp is not installed: new processes cannot be forbidden")
            _drop_capabilities()
            os.execve(config["argv"][0], config["argv"], config["env"])
        except BaseException as error:
            print(f"sandbox: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
            os._exit(70)
    status = 0
    while True:  # the namespace's init: reap every process, return the server's status
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        if pid == child:
            break
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main()
