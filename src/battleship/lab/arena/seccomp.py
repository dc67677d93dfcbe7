"""The system calls a sandboxed bot is refused: a seccomp filter compiled with libseccomp, for bubblewrap.

The filter is Docker's default profile's idea turned round for a contest: everything is allowed but
the calls that reach a kernel object another bot could reach too, or that change what the sandbox
is. Each refused call fails with ``EPERM`` (a program sees an ordinary error, not a crash), except
``clone3``, which fails with ``ENOSYS`` so the C library falls back to ``clone``, whose flags a filter
can read. Refused:

- the kernel key store (``add_key``, ``keyctl``, ``request_key``): keys outlive the process that
  made them, so two bots could pass battlefields through it;
- System V and POSIX message queues, semaphores and shared memory (also kept apart by the IPC
  namespace);
- new namespaces (``unshare``, ``setns``, ``clone`` with any ``CLONE_NEW*`` flag): no user namespace
  inside the sandbox, so no root of its own, no mount of an unlimited tmpfs;
- mounting and the new mount API, ``pivot_root``, ``chroot``;
- looking into or steering other processes (``ptrace``, ``process_vm_readv``/``writev``,
  ``pidfd_getfd``, ``kcmp``), ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring``;
- the host's settings (clock, host name, modules, swap, reboot, kexec, accounting, quotas, the
  kernel log, ``iopl``/``ioperm``, file handles).

Calls made for another architecture (a 32-bit ``int 0x80`` call from a 64-bit program) kill the
process: the filter only knows the native numbers. libseccomp is the C library (Debian's
``libseccomp2``, which ``apt`` itself needs, so every Debian or Ubuntu machine has it), called here
through :mod:`ctypes`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import tempfile

ALLOW = 0x7FFF0000  # SCMP_ACT_ALLOW
CMP_MASKED_EQ = 7  # SCMP_CMP_MASKED_EQ: (argument & datum_a) == datum_b

# every flag that makes a namespace (clone's low byte is the exit signal: CLONE_NEWTIME, 0x80, is
# only for unshare and clone3, both refused whole)
CLONE_NEW = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}

REFUSED = (
    # the key store
    "add_key", "keyctl", "request_key",
    # System V and POSIX IPC
    "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl",
    "shmget", "shmat", "shmdt", "shmctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # namespaces and mounts
    "unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot", "mount_setattr",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
    # other processes and the kernel's tracing machinery
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp", "bpf", "perf_event_open",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "fanotify_init",
    "lookup_dcookie",
    # the host
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "init_module", "finit_module", "delete_module", "create_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup",
    "iopl", "ioperm", "open_by_handle_at", "name_to_handle_at", "nfsservctl", "uselib", "ustat",
    "sysfs", "_sysctl", "get_kernel_syms", "query_module", "vm86", "vm86old",
)  # fmt: skip


class SeccompUnavailable(OSError):
    """libseccomp is not on this machine, or could not compile the filter."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _errno_action(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)  # SCMP_ACT_ERRNO(number)


@functools.cache
def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(
            f"libseccomp is not installed (Debian's libseccomp2 package): {exc}"
        ) from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgCmp)
    ]  # fmt: skip
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def _rule(lib: ctypes.CDLL, ctx: int, action: int, name: str, *cmps: _ArgCmp) -> None:
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:  # this architecture has no such call: nothing to refuse
        return
    array = (_ArgCmp * len(cmps))(*cmps) if cmps else None
    code = lib.seccomp_rule_add_array(ctx, action, number, len(cmps), array)
    if code < 0:
        raise SeccompUnavailable(f"libseccomp refused a rule for {name}: {os.strerror(-code)}")


@functools.cache
def program() -> bytes:
    """The filter as classic BPF, as bubblewrap's ``--seccomp FD`` reads it (compiled once a process)."""
    lib = _library()
    ctx = lib.seccomp_init(ALLOW)
    if not ctx:
        raise SeccompUnavailable("libseccomp could not start a filter")
    try:
        refuse = _errno_action(errno.EPERM)
        for name in REFUSED:
            _rule(lib, ctx, refuse, name)
        for flag in CLONE_NEW.values():
            _rule(lib, ctx, refuse, "clone", _ArgCmp(0, CMP_MASKED_EQ, flag, flag))
        _rule(lib, ctx, _errno_action(errno.ENOSYS), "clone3")
        with tempfile.TemporaryFile() as out:
            code = lib.seccomp_export_bpf(ctx, out.fileno())
            if code < 0:
                raise SeccompUnavailable(f"libseccomp could not export the filter: {os.strerror(-code)}")
            out.seek(0)
            return out.read()
    finally:
        lib.seccomp_release(ctx)


def descriptor() -> int:
    """A fresh read descriptor holding :func:`program` (bubblewrap reads it to the end; the caller
    closes it once the sandbox has started)."""
    data = program()
    read, write = os.pipe()
    if len(data) > 60000:  # a pipe holds 64 KiB: the filter is a few hundred bytes
        raise SeccompUnavailable(f"the seccomp filter is {len(data)} bytes, too long for a pipe")
    os.write(write, data)
    os.close(write)
    return read
