"""``make bench-quick``: reduced versions of every reproduction table and of the scale table.

Runs, one after the other, the ``--quick`` configuration of ``reproduce_da_table2``,
``reproduce_lds_table2``, ``reproduce_cs3vm_table1``, ``reproduce_qn_table1``,
``reproduce_lapsvm_tables``, ``reproduce_multiclass`` and ``scale`` (a few minutes on 2 cores
with ``--n-jobs 2``), each printing its markdown table. Results go to
``benchmarks/results/<name>_quick/`` (or under ``--out``); a second run resumes from them
(``--fresh`` recomputes). ``--tiny`` is a smoke test of the same code paths in seconds (what
``tests/benchmarks`` runs).

Run ``python -m benchmarks.quick [--n-jobs 2] [--scheduler ADDRESS] [--out DIR] [--tiny]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks import (
    reproduce_cs3vm_table1,
    reproduce_da_table2,
    reproduce_lapsvm_tables,
    reproduce_lds_table2,
    reproduce_multiclass,
    reproduce_qn_table1,
    scale,
)

REPRODUCTIONS = {
    "da_table2": reproduce_da_table2,
    "lds_table2": reproduce_lds_table2,
    "cs3vm_table1": reproduce_cs3vm_table1,
    "qn_table1": reproduce_qn_table1,
    "lapsvm_tables": reproduce_lapsvm_tables,
    "multiclass": reproduce_multiclass,
}


def main(argv=None) -> dict[str, list[dict]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tiny", action="store_true", help="smoke test: seconds, not minutes")
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS")
    p.add_argument("--out", type=Path, default=None,
                   help="parent folder of every table's results (default benchmarks/results)")
    p.add_argument("--fresh", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--only", nargs="+", choices=[*REPRODUCTIONS, "scale"], default=None)
    args = p.parse_args(argv)
    mode = "--tiny" if args.tiny else "--quick"
    common = [mode, "--n-jobs", str(args.n_jobs)]
    common += ["--scheduler", args.scheduler] if args.scheduler else []
    common += ["--fresh"] if args.fresh else []
    common += ["--no-progress"] if args.no_progress else []
    results, start = {}, time.perf_counter()
    for name, module in REPRODUCTIONS.items():
        if args.only and name not in args.only:
            continue
        out = [] if args.out is None else ["--out", str(args.out / f"{name}_{mode[2:]}")]
        results[name] = module.main(common + out)
    if not args.only or "scale" in args.only:
        out = [] if args.out is None else ["--out", str(args.out / f"scale_{mode[2:]}")]
        results["scale"] = scale.main([mode] + out + (["--no-progress"] if args.no_progress
                                                      else []))
    print(f"\nbench-quick finished in {time.perf_counter() - start:.0f} s")
    return results


if __name__ == "__main__":
    main()
