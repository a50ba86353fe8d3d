"""The shell examples of README.md and docs/*.md, read from the pages and run as a reader would.

An example is a fenced block holding ``$ COMMAND`` lines, each followed by the output the page
shows; a command may continue over lines ending in ``\\``. The block runs, one command after the
other, in bash in a folder of its own that links the repository's files (so the examples name
``instances/...`` and ``docs/examples/...`` as from a clone, and what they write lands in that
folder: a fresh ``results/``, and a copy of ``scripts/``, whose benchmarks write beside themselves).

What the page shows is compared line by line with what the command prints (stdout and stderr as
a terminal shows them), with these elisions:

- a line ``...`` stands for any number of lines (rows left out);
- ``...`` inside a line stands for any text (a path, a long tail);
- after ``<!-- example: timings vary -->`` above the block, every decimal number (``0.050``,
  ``1.2``) and every clock (``0:00:33``) stands for any such number: times and the figures
  computed from them.

Every command must exit 0; a page that means another status shows it with ``; echo $?``.

A block with a command that is not run says why in an HTML comment just above it:

- ``<!-- example: not run: REASON -->`` (pseudo output, a synopsis, a command that needs root or
  a cluster);
- ``<!-- example: long (TIME): REASON. Small variant: ... -->`` for a benchmark that takes minutes:
  the lines after ``Small variant:`` in the comment are a session of their own (``$`` commands
  and their output, elided as above, timings always varying), which the tests run instead.

A block that needs an optional solver install.sh may not have put in place says so, and is skipped,
with that reason, where the solver is missing (``<!-- example: timings vary; needs Chuffed -->``):
without it the page's output cannot appear, which is not a fault of the page.

A ``>>>`` block is a Python session, run by doctest with ``...`` elisions.

The terminal is 120 columns wide (``COLUMNS``: rich fits its tables to it). To run the examples
without pytest, and see each difference or what a session prints now (to paste into a page):

    python -m tests.docs_examples [PAGE[:LINE]...]            # e.g. README.md, docs/cnf.md:44
    python -m tests.docs_examples --print docs/search.md
"""

from __future__ import annotations

import difflib
import doctest
import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# A fenced block whose first command line starts with one of these is a shell example.
COMMAND_WORDS = ("sigmar ", "python ", "python3 ", "bash ", "pip ", "minizinc ", "cadical ", "apt-get ", "sudo ")
# Top-level entries an example's folder does not link: what examples write (results/), what they
# must not see (git, the virtual environment), and scripts/ (copied, since the benchmarks write
# to results/ beside the script's own folder).
NOT_LINKED = {".git", ".venv", "results", "scripts", "build", "dist", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
# Seconds for one command: far above any example's small variant, so only a hang meets it (and fails).
TIMEOUT = int(os.environ.get("SIGMAR_EXAMPLE_TIMEOUT", "300"))


@dataclass
class Command:
    line: int  # of the page, 1-based
    text: str
    shown: list[str] = field(default_factory=list)


@dataclass
class Example:
    page: str  # relative to the repository
    line: int  # of the opening fence, 1-based
    commands: list[Command]
    directive: str = ""  # the text of the <!-- example: ... --> comment above the block, if any
    python: bool = False  # a >>> session
    bare: bool = False  # commands written without a "$ " prompt (a list to copy, not a session)

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def kind(self) -> str:
        """'run', 'long' (run its small variant), or 'not run'."""
        if self.directive.startswith("not run"):
            return "not run"
        if self.directive.startswith("long"):
            return "long"
        return "run"

    @property
    def needs(self) -> list[str]:
        """The optional solvers the block needs, lower case (a ``; needs Chuffed`` part of its directive)."""
        return [name.lower() for name in re.findall(r"(?:^|;)\s*needs (\w+)", self.directive)]

    @property
    def timings_vary(self) -> bool:
        return self.kind == "long" or "timings vary" in self.directive

    def small_variant(self) -> list[Command]:
        """The session a long example's comment gives to run instead of the block."""
        _, _, session = self.directive.partition("Small variant:")
        return parse_session(session.strip("\n").splitlines(), self.line)


def parse_session(lines: list[str], first_line: int) -> list[Command]:
    """``$`` commands (with ``\\`` continuations) and the lines each shows, from a block's lines."""
    commands: list[Command] = []
    continued = False
    for offset, raw in enumerate(lines):
        line = raw.rstrip()
        if continued:
            commands[-1].text += "\n" + line
            continued = line.endswith("\\")
        elif line.startswith("$ "):
            commands.append(Command(first_line + offset, line[2:]))
            continued = line.endswith("\\")
        elif commands:
            commands[-1].shown.append(line)
    return commands


def examples(pages: list[Path] = PAGES) -> list[Example]:
    """Every fenced block of the pages that holds a command, with the directive above it."""
    found = []
    for page in pages:
        lines = page.read_text(encoding="utf-8").splitlines()
        name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
        i = 0
        while i < len(lines):
            fence = re.match(r"\s*(```+)(\w*)", lines[i])
            if not fence:
                i += 1
                continue
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == fence.group(1))
            body = lines[i + 1 : end]
            directive = directive_above(lines, i)
            if any(line.startswith(">>> ") for line in body):
                found.append(Example(name, i + 1, [Command(i + 2, "\n".join(body))], directive, python=True))
            elif any(line.startswith("$ ") for line in body):
                found.append(Example(name, i + 1, parse_session(body, i + 2), directive))
            elif fence.group(2) in ("", "sh", "bash", "shell") and looks_like_commands(body):
                commands = [Command(i + 2 + k, line) for k, line in enumerate(body) if line.strip()]
                found.append(Example(name, i + 1, commands, directive, bare=True))
            i = end + 1
    return found


def looks_like_commands(body: list[str]) -> bool:
    """A block without prompts whose first line that is not a comment starts with a command."""
    first = next((line for line in body if line.strip() and not line.startswith("#")), "")
    return first.startswith(COMMAND_WORDS)


def directive_above(lines: list[str], fence: int) -> str:
    """The ``<!-- example: ... -->`` comment that ends on the line above the fence (blank lines between allowed)."""
    j = fence - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0 or not lines[j].rstrip().endswith("-->"):
        return ""
    start = j
    while start >= 0 and "<!--" not in lines[start]:
        start -= 1
    text = "\n".join(lines[start : j + 1]).strip()
    match = re.fullmatch(r"<!--\s*example:\s*(.*?)\s*-->", text, flags=re.S)
    return match.group(1) if match else ""


# -- running


def sandbox(folder: Path) -> Path:
    """A folder that looks like the repository's root to an example, without letting it write into the clone."""
    folder.mkdir(parents=True, exist_ok=True)
    for entry in ROOT.iterdir():
        if entry.name in NOT_LINKED or entry.name.endswith(".egg-info"):
            continue
        (folder / entry.name).symlink_to(entry)
    shutil.copytree(ROOT / "scripts", folder / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "results").mkdir()
    return folder


def environment() -> dict[str, str]:
    """This interpreter's ``sigmar`` and ``python`` first on the PATH, and a fixed terminal width for rich's tables."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "120"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def run(command: Command, folder: Path) -> tuple[int, list[str]]:
    """The exit status and the lines the command prints, as a terminal would show them (stderr with stdout)."""
    with subprocess.Popen(
        ["bash", "-c", command.text],
        cwd=folder,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, so that a hung example is killed whole
    ) as process:
        try:
            out, _ = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, _ = process.communicate()
            return -1, [f"(killed after {TIMEOUT} s)", *out.splitlines()]
    return process.returncode, [line.rstrip() for line in out.splitlines()]


# -- comparing

DECIMAL = r"\d+(?:\.\d+)?"
TIMING = re.compile(r"\d+:\d\d:\d\d|\d+\.\d+")


def line_pattern(shown: str, timings_vary: bool) -> str:
    """A regular expression for one shown line: ``...`` is any text; with timings varying, any decimal or clock is."""
    parts = []
    for k, piece in enumerate(shown.split("...")):
        if k:
            parts.append(".*?")
        if timings_vary:
            last = 0
            for number in TIMING.finditer(piece):
                parts.append(re.escape(piece[last : number.start()]))
                parts.append(r"\d+:\d\d:\d\d" if ":" in number.group() else DECIMAL)
                last = number.end()
            parts.append(re.escape(piece[last:]))
        else:
            parts.append(re.escape(piece))
    return "".join(parts)


def matches(shown: list[str], printed: list[str], timings_vary: bool) -> bool:
    """Whether the printed lines are the shown ones, a line ``...`` standing for any number of lines."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line.strip() == "..." else line_pattern(line, timings_vary) + r"\n" for line in shown
    )
    text = "".join(line + "\n" for line in printed)
    return re.fullmatch(pattern, text) is not None


def explain(example: Example, command: Command, status: int, printed: list[str]) -> str:
    """The message of a failed example: where it is, what ran, and the difference."""
    diff = "\n".join(difflib.unified_diff(command.shown, printed, "shown on the page", "printed", lineterm="", n=2))
    return (
        f"{example.page}:{command.line}: `{command.text}` exited {status}"
        f"{' (timings vary)' if example.timings_vary else ''}\n{diff or '(same lines; it is the exit status)'}"
    )


def run_python(example: Example) -> str:
    """Run a ``>>>`` block with doctest from the repository's root; the failure report, or ''."""
    text = example.commands[0].text
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, example.id, example.page, example.line)
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=report.append)
    return "".join(report)


def main(argv: list[str]) -> int:
    """``python -m tests.docs_examples [PAGE[:LINE]...]``: run the examples, print each difference; exit 1 if any."""
    import tempfile

    show = "--print" in argv  # print each session as it ran, to paste into a page
    argv = [a for a in argv if a != "--print"]
    failed = 0
    for example in examples():
        if argv and not any(example.id == a or example.page == a for a in argv):
            continue
        if example.kind == "not run" or example.python or (example.bare and example.kind == "run"):
            continue
        with tempfile.TemporaryDirectory() as temp:
            folder = sandbox(Path(temp) / "clone")
            for command in example.small_variant() if example.kind == "long" else example.commands:
                status, printed = run(command, folder)
                if show:
                    print(f"--- {example.page}:{command.line} (exit {status})\n$ {command.text}", *printed, sep="\n")
                    continue
                if status != 0 or not matches(command.shown, printed, example.timings_vary):
                    failed += 1
                    print(explain(example, command, status, printed), "\n")
                    break
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


# -- benchmark commands named in the prose

# What the prose's placeholders stand for when their arguments are parsed.
PLACEHOLDERS = {"SEED": "1", "SUB": "gecode", "ORDER": "restarts"}
INLINE_SCRIPT = re.compile(r"`(?:nice )?python3? (scripts/[\w/-]+\.py)((?: [^`]*)?)`")


@dataclass
class ScriptMention:
    page: str
    line: int
    script: str
    args: list[str]

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}:{Path(self.script).stem}"


def script_mentions(pages: list[Path] = PAGES) -> list[ScriptMention]:
    """Every ``python scripts/X.py ARGS`` in a page's prose (inline code), bracketed optional parts left out."""
    found = []
    for page in pages:
        name = page.relative_to(ROOT).as_posix()
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            for match in INLINE_SCRIPT.finditer(line):
                args = re.sub(r"\[[^\]]*\]", "", match.group(2)).split()
                args = [PLACEHOLDERS.get(arg, arg) for arg in args]
                found.append(ScriptMention(name, number, match.group(1), args))
    return found


class ParsedOnly(Exception):
    """Raised in place of running a benchmark once its arguments are parsed."""


def parse_only(script: Path, args: list[str]) -> None:
    """Run the script's own argument parser on ``args`` and stop before it benchmarks anything.

    The script's module-level code runs (its imports); its ``main`` stops at ``parse_args``,
    which raises SystemExit(2) with argparse's message when an option is unknown or malformed.
    """
    import argparse
    import runpy
    from unittest import mock

    original = argparse.ArgumentParser.parse_args

    def parse_then_stop(self: argparse.ArgumentParser, *a: object, **k: object) -> object:
        original(self, *a, **k)  # type: ignore[arg-type]
        raise ParsedOnly

    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(script), *args]
    sys.path.insert(0, str(script.parent))  # as `python scripts/bench/X.py` does: the scripts import benchlib
    try:
        with mock.patch.object(argparse.ArgumentParser, "parse_args", parse_then_stop):
            runpy.run_path(str(script), run_name="__main__")
    except ParsedOnly:
        return
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    raise AssertionError(f"{script.name} returned without parsing its arguments")


# -- the options the pages name

INLINE_SIGMAR = re.compile(r"`(sigmar [a-z]+[^`]*)`")


def sigmar_mentions(pages: list[Path] = PAGES) -> list[tuple[str, str]]:
    """(page:line, text) of every ``sigmar COMMAND ...`` a page names: inline code, and lines of fenced blocks."""
    found = []
    for page in pages:
        name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
        fenced = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                command = line.removeprefix("$ ")
                if re.match(r"sigmar [a-z]+( |$)", command):  # not output such as "sigmar show: ..."
                    found.append((f"{name}:{number}", command.split("  #")[0]))
            else:
                found.extend((f"{name}:{number}", m.group(1)) for m in INLINE_SIGMAR.finditer(line))
    return found


def unknown_options(text: str) -> list[str]:
    """The ``--options`` of a ``sigmar COMMAND ...`` text that COMMAND's parser does not have."""
    from sigmar.runners.cli import SUBCOMMANDS, build_parser

    words = text.split()
    command = words[1]
    if command not in SUBCOMMANDS:
        return [f"no command {command!r}"]
    parser = build_parser([command])
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]  # type: ignore[index]
    known = {option for action in sub._actions for option in action.option_strings}
    named = {m.group(0) for m in re.finditer(r"(?<![\w-])--[a-z][a-z0-9-]*", " ".join(words[2:]))}
    return sorted(named - known)
