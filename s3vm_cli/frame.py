"""What every subcommand of the command line shares: its two kinds of failure (and their exit
codes), its registry (``@command``) and its one-line messages on stderr."""

from __future__ import annotations

import argparse
import sys
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
