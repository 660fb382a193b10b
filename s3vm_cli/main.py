"""The command line: its parser of the registered subcommands (``s3vm_cli.commands``,
``s3vm_cli.selection``, ``s3vm_cli.svmlin``), its one-line errors and its exit codes.

Exit codes: 0 done, 1 the run failed (the solver or the disk), 2 bad usage or bad input (a bad
file, an unknown or out-of-range parameter). Every error is one line on stderr.
"""

from __future__ import annotations

import argparse
import warnings

# importing the command modules registers their commands
from s3vm_cli import commands, selection, svmlin  # noqa: F401
from s3vm_cli.frame import COMMANDS, RunFailure, UsageError, say
from s3vm_core import __version__


def _show_warning(message, category, *_args, **_kwargs) -> None:
    say(f"warning: {message}")


class _Parser(argparse.ArgumentParser):
    """argparse's usage errors as one line, like every other error (exit code 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`).\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="s3vm", description="Semi-supervised SVMs of five papers on your own data files.",
        epilog="Run `s3vm COMMAND --help` for a command's options and an example.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for spec in COMMANDS:
        sub = subparsers.add_parser(spec.name, help=spec.summary, description=spec.summary + ".",
                                    epilog=f"example:\n  {spec.example}",
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.set_defaults(run=spec.configure(sub))
    return parser


def main(argv=None) -> int:
    """Run the command line; returns the exit code (0 done, 1 failed, 2 bad usage or input)."""
    parser = build_parser()
    args, passed_on = parser.parse_known_args(argv)
    if passed_on and args.command != "app":  # only the app passes options on, to Streamlit
        parser.error(f"unrecognized arguments: {' '.join(passed_on)}")
    args.passed_on = passed_on
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning  # a solver's warning as one line, no file path
        if getattr(args, "quiet", False):
            warnings.simplefilter("ignore")  # -q: errors only
        return _run(args)


def _run(args) -> int:
    try:
        return args.run(args)
    except UsageError as error:
        say(str(error))
        return 2
    except RunFailure as error:
        say(str(error))
        return 1
    except KeyboardInterrupt:
        say("interrupted.")
        return 130
    except Exception as error:  # noqa: BLE001 - one line, never a traceback
        say(f"failed: {type(error).__name__}: {error}")
        return 1
