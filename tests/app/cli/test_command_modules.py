"""A command's code is in the module named after it: `reasonscope x-y` runs a function of
`app.cli.x_y`, `reasonscope g s` one of `app.cli.g.s` (a trailing `_` where the name is a
keyword or a builtin: `app.cli.import_`, `app.cli.pack.list_`). Checked on the real parser,
and on a small fake one that the check must refuse."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from app.cli import COMMAND_MODULES, build_parser
from app.cli import info as info_module
from app.cli.pack import create as pack_create_module
from app.cli.pack import list_ as pack_list_module

Command = tuple[str, ...]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name (an alias is left out: it runs the same parser)."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if all(sub is not seen for seen in found.values()):
                    found[name] = sub
    return found


def commands(parser: argparse.ArgumentParser, prefix: Command = ()) -> list[tuple[Command, object]]:
    """Every runnable command under `parser` with the `func` it runs (None: a command that
    has neither a `func` nor subcommands of its own)."""
    found: list[tuple[Command, object]] = []
    for name, sub in _subcommands(parser).items():
        command = (*prefix, name)
        nested = commands(sub, command)
        if nested:
            found += nested
        else:
            found.append((command, sub.get_default("func")))
    return found


def named_after(module: str, command: Command) -> bool:
    """Whether `module` is the one named after `command`: `app.cli` and one part a word, each
    the word with dashes as underscores, or that with a trailing underscore."""
    parts = module.split(".")
    if parts[:2] != ["app", "cli"] or len(parts) != 2 + len(command):
        return False
    return all(
        part in (word.replace("-", "_"), word.replace("-", "_") + "_")
        for part, word in zip(parts[2:], command, strict=True)
    )


def misplaced(found: list[tuple[Command, object]]) -> list[str]:
    """The commands whose function is not defined in the module named after them."""
    wrong = []
    for command, func in found:
        module = getattr(func, "__module__", None)
        if not callable(func) or module is None or not named_after(module, command):
            wrong.append(f"{' '.join(command)}: runs {func!r} from {module}")
    return wrong


def test_every_command_runs_a_function_of_the_module_named_after_it():
    found = commands(build_parser())
    names = {" ".join(command) for command, _ in found}
    # the walk reaches top-level commands and the subcommands of every group
    assert {
        "demo",
        "run-agent",
        "replay-in-sim",
        "pack list",
        "import spatial-predictions",
    } <= names
    assert len(found) >= 29
    assert misplaced(found) == []


def test_command_modules_are_exactly_the_modules_the_commands_run_from():
    modules = {getattr(func, "__module__", None) for _, func in commands(build_parser())}
    assert [m.__name__ for m in COMMAND_MODULES if m.__name__ not in modules] == []
    assert modules == {m.__name__ for m in COMMAND_MODULES}
    assert len(COMMAND_MODULES) == len(modules)


def _fake_parser(top: dict[str, Callable], group: dict[str, Callable]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fake")
    sub = parser.add_subparsers(dest="command")
    for name, func in top.items():
        sub.add_parser(name).set_defaults(func=func)
    if group:
        pack = sub.add_parser("pack").add_subparsers(dest="pack_command")
        for name, func in group.items():
            pack.add_parser(name).set_defaults(func=func)
    return parser


def test_the_check_refuses_a_misplaced_command():
    right = _fake_parser({"info": info_module.cmd_info}, {"list": pack_list_module.cmd_list})
    assert misplaced(commands(right)) == []

    wrong = _fake_parser(
        {"demo": info_module.cmd_info, "info": info_module.cmd_info},
        {"merge": pack_create_module.cmd_create, "list": pack_list_module.cmd_list},
    )
    assert [line.split(":")[0] for line in misplaced(commands(wrong))] == ["demo", "pack merge"]

    nameless = _fake_parser({"info": lambda args: 0}, {})
    assert [line.split(":")[0] for line in misplaced(commands(nameless))] == ["info"]


def test_module_names_allow_a_trailing_underscore_and_nothing_else():
    assert named_after("app.cli.replay_in_sim", ("replay-in-sim",))
    assert named_after("app.cli.import_.spatial_predictions", ("import", "spatial-predictions"))
    assert named_after("app.cli.pack.list_", ("pack", "list"))
    assert not named_after("app.cli.pack", ("pack", "list"))
    assert not named_after("app.cli.pack.create", ("pack", "list"))
    assert not named_after("app.cli.verify", ("review",))
    assert not named_after("app.cli.support.verify", ("verify",))
    assert not named_after("app.cli.verify__", ("verify",))
