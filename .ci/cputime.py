#!/usr/bin/env python3
"""cputime.py ERRFILE CMD...: run CMD (stdout to /dev/null, stderr to
ERRFILE) and print its user+system CPU seconds to the microsecond and its
peak RSS in KB, "0.123 45678"; exit with CMD's status.

.ci/bench's cpu: /usr/bin/time prints hundredths of a second, which put
the 16 MB trajectory's ~0.07 s up to a seventh off either way. The CPU
is the kernel's rusage of the child (wait4, microseconds); the peak RSS
is still /usr/bin/time's, run as the child: a child spawned from Python
starts in Python's memory and reports at least its ~14 MB as peak RSS.
"""
import os
import sys


def main():
    errpath, cmd = sys.argv[1], sys.argv[2:]
    rsspath = errpath + ".rss"
    err = os.open(errpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null = os.open(os.devnull, os.O_WRONLY)
    argv = ["/usr/bin/time", "-f", "%M", "-o", rsspath] + cmd
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 1),
                                       (os.POSIX_SPAWN_DUP2, err, 2)])
    # wait4's usage is the child's (time's, a millisecond) and that of
    # the children it waited for (CMD's).
    _, status, usage = os.wait4(pid, 0)
    with open(rsspath) as f:
        lines = f.read().split()
    os.unlink(rsspath)
    rss = lines[-1] if lines and lines[-1].isdigit() else "0"
    print("%.3f %s" % (usage.ru_utime + usage.ru_stime, rss))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
