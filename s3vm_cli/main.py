"""The command line's frame: its subcommands, its one-line errors and its exit codes.

Exit codes: 0 done, 1 the run failed (the solver or the disk), 2 bad usage or bad input (a bad
file, an unknown or out-of-range parameter). Every error is one line on stderr. Each command is
one function registered with ``@command`` (its arguments, then its run), in
``s3vm_cli.commands`` and ``s3vm_cli.svmlin``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass


class UsageError(Exception):
    """Bad usage or bad input: exit code 2."""


class RunFailure(Exception):
    """The run itself failed: exit code 1."""


@dataclass
class Command:
    name: str
    summary: str
    example: str
    configure: Callable[[argparse.ArgumentParser], Callable[[argparse.Namespace], int]]


COMMANDS: list[Command] = []


def command(name: str, summary: str, example: str):
    """Register a subcommand: the decorated function adds its arguments to the subparser it is
    given and returns the function that runs it (``args -> exit code``)."""
    def register(configure):
        COMMANDS.append(Command(name, summary, example, configure))
        return configure
    return register


#: Longest message written (characters): a message quotes what it was given, cut.
MAX_MESSAGE_CHARS = 1000


def say(message: str) -> None:
    """One line on stderr, prefixed ``s3vm:`` (its whitespace made single spaces, cut at
    ``MAX_MESSAGE_CHARS``)."""
    message = " ".join(str(message).split())
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + " [...]"
    sys.stderr.write(f"s3vm: {message}\n")


def quoted(text: str, limit: int = 60) -> str:
    """``text`` as a message quotes it: its repr, cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _show_warning(message, category, *_args, **_kwargs) -> None:
    say(f"warning: {message}")


class _Parser(argparse.ArgumentParser):
    """argparse's usage errors as one line, like every other error (exit code 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`).\n")


def build_parser() -> argparse.ArgumentParser:
    from s3vm_cli import commands, svmlin  # noqa: F401 - importing them registers their commands

    parser = _Parser(
        prog="s3vm", description="Semi-supervised SVMs of five papers on your own data files.",
        epilog="Run `s3vm COMMAND --help` for a command's options and an example.")
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
