"""How much memory a fit's dense matrices may take: a share of the machine's, read at run time.

``problem.check_dense_memory`` refuses, before anything is allocated, the matrices that would
pass this limit. The limit is, in this order of precedence:

1. ``s3vm_core.problem.MAX_DENSE_BYTES`` when a program sets it (bytes);
2. the environment variable ``S3VM_MAX_DENSE_GIB`` (GiB, e.g. ``S3VM_MAX_DENSE_GIB=8``);
3. ``DENSE_MEMORY_SHARE`` (half) of the memory available when the check runs.
"""

from __future__ import annotations

import math
import os

#: Share of the memory available when a fit starts that the dense matrices it holds at once
#: may take: the other half is left for their temporary copies (a solve's factorization, a
#: block of distances), the data, the graph and other programs. On a machine with 24 GiB and
#: 20 GiB available: 10 GiB, a 36,000 x 36,000 float64 matrix.
DENSE_MEMORY_SHARE = 0.5

#: Environment variable that sets the limit in GiB instead.
MEMORY_LIMIT_VARIABLE = "S3VM_MAX_DENSE_GIB"


def available_memory() -> int:
    """Bytes of memory this process can still take: the kernel's estimate ``MemAvailable``
    (free memory plus the caches it can drop), within the container's limit (cgroup v2
    ``memory.max``) when there is one; the physical memory where ``/proc`` is absent."""
    available = None
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = 1024 * int(line.split()[1])  # the value is in kB
                    break
    except (OSError, ValueError, IndexError):
        pass
    if available is None:
        available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open("/sys/fs/cgroup/memory.max") as limit, \
                open("/sys/fs/cgroup/memory.current") as used:
            text = limit.read().strip()
            if text != "max":
                available = min(available, int(text) - int(used.read()))
    except (OSError, ValueError):
        pass
    return max(int(available), 0)


def dense_memory_limit(fixed: int | None = None) -> tuple[int, str]:
    """The bytes a fit's dense matrices may take at once, and where that figure comes from
    (said in a refusal): ``fixed`` when given, else the environment variable, else the share
    of ``available_memory()``."""
    if fixed is not None:
        return int(fixed), "set by s3vm_core.problem.MAX_DENSE_BYTES"
    setting = os.environ.get(MEMORY_LIMIT_VARIABLE, "").strip()
    if not setting:
        return (int(DENSE_MEMORY_SHARE * available_memory()),
                f"{DENSE_MEMORY_SHARE:.0%} of the memory available now; set "
                f"{MEMORY_LIMIT_VARIABLE} to another limit in GiB")
    try:
        gib = float(setting)
    except ValueError:
        gib = math.nan
    if not 0 < gib < math.inf:
        raise ValueError(
            f"The environment variable {MEMORY_LIMIT_VARIABLE}={setting!r} must be a positive "
            "number of GiB (for example 8): the memory a fit's dense matrices may take. Fix it, "
            "or unset it to allow half of the memory available."
        )
    return int(gib * 2**30), f"set by {MEMORY_LIMIT_VARIABLE}"


def size_text(n_bytes: float) -> str:
    """A number of bytes in GiB, to three digits: ``4.29 GiB``, ``0.0107 GiB``."""
    return f"{n_bytes / 2**30:.3g} GiB"
