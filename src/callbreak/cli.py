"""The ``callbreak`` command. It only reads arguments and calls the layers below."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from callbreak import __version__
from callbreak.errors import CallbreakError
from callbreak.record import CheckResult, check, load
from callbreak.rules import PROFILES, format_tenths

EXIT_OK, EXIT_BROKEN, EXIT_UNREADABLE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2, without the usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_UNREADABLE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(prog="callbreak", description="Call Break: rules, records and players.")
    parser.add_argument("--version", action="version", version=f"callbreak {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check_parser = commands.add_parser(
        "check",
        help="judge game records",
        description="Replay game records and report scores or the first rule broken. "
        "Exit 0 when every file is valid, 1 when one breaks a rule, 2 when one cannot be read.",
    )
    check_parser.add_argument("files", nargs="+", metavar="FILE", help="game record (JSON)")
    check_parser.add_argument(
        "--json", action="store_true", help="print one JSON object per file, one per line"
    )

    commands.add_parser("rules", help="list the rule profiles", description="List the profiles.")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "check":
            return run_check(args.files, as_json=args.json)
        if args.command == "rules":
            return run_rules()
    except KeyboardInterrupt:
        print("callbreak: interrupted", file=sys.stderr)
        return 130
    raise AssertionError(f"unhandled command {args.command}")


def run_rules() -> int:
    """Print each profile with its one-line summary."""
    from rich.console import Console

    console = Console()
    for name, rules in PROFILES.items():
        console.print(f"[bold]{name}[/bold]: {rules.summary()}", highlight=False, soft_wrap=True)
    return EXIT_OK


def run_check(files: Sequence[str], *, as_json: bool) -> int:
    """Judge each file in order; print one verdict per file."""
    from rich.console import Console

    console = Console(highlight=False)
    status = EXIT_OK
    for path in files:
        try:
            result = check(load(path))
        except CallbreakError as error:
            message = f"{path}: {error}"
        except Exception as error:  # a bug of ours must still not end in a traceback
            message = f"{path}: internal error, please report it: {type(error).__name__}: {error}"
        else:
            message = ""
        if message:
            print(f"callbreak check: {message}", file=sys.stderr)
            if as_json:
                unreadable = {"valid": False, "readable": False, "error": {"message": message}}
                print(json.dumps(unreadable, ensure_ascii=False))
            status = EXIT_UNREADABLE
            continue
        if not result.valid and status == EXIT_OK:
            status = EXIT_BROKEN
        if as_json:
            print(json.dumps(result.to_json(), ensure_ascii=False))
        else:
            _report(console, path, result)
    return status


def _report(console: object, path: str, result: CheckResult) -> None:
    from rich.console import Console
    from rich.table import Table

    assert isinstance(console, Console)
    names = result.record.players
    if result.error is not None:
        error = result.error
        where = f"deal {error.deal}" + (f", trick {error.trick}" if error.trick else "")
        who = f"seat {error.seat} ({names[error.seat]})" if error.seat is not None else ""
        if error.card is not None and error.seat is not None:
            action = f"{who} played the {error.card.pretty()}: "
        elif error.call is not None:
            action = f"{who} called {error.call}: "
        else:
            action = f"{who}: " if who else ""
        legal = ""
        if error.legal:
            shown = [str(x) if error.call is not None else x.pretty() for x in error.legal]  # type: ignore[union-attr]
            legal = f" (legal: {' '.join(shown)})"
        verdict = f"[bold red]{path}: breaks a rule[/] in {where}: "
        console.print(f"{verdict}{action}{error.message}{legal}", soft_wrap=True)
        return
    table = Table(title=f"{path}: valid ({result.rules})", title_justify="left")
    table.add_column("deal", justify="right")
    for seat, name in enumerate(names):
        table.add_column(f"{seat} {name}", justify="right")
    played = [deal for deal in result.deals if deal.phase.value == "over"]
    for number, deal in enumerate(played, 1):
        cells = [
            f"{deal.calls[seat]}/{deal.won[seat]}  {format_tenths(score)}"
            for seat, score in enumerate(deal.scores())
        ]
        table.add_row(str(number), *cells)
    table.add_section()
    table.add_row("total", *(format_tenths(t) for t in result.totals), style="bold")
    table.add_row("place", *(str(p) for p in result.places))
    console.print(table)
    if result.record.unfinished:
        console.print("(the match is marked unfinished)")


def entry_point() -> None:
    """The console script."""
    sys.exit(main())
