"""The ``callbreak`` command. It only reads arguments and calls the layers below."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import ipaddress
import json
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from callbreak import __version__
from callbreak.bots.remote import BotAddresses
from callbreak.errors import CallbreakError
from callbreak.game import Phase
from callbreak.record import CheckResult, check, load
from callbreak.rules import PROFILES, format_tenths
from callbreak.web.limits import DEFAULT as DEFAULT_LIMITS
from callbreak.web.limits import Limits
from callbreak.web.matching import DEFAULT_POOLS, Pool, parse_pools
from callbreak.web.retention import Retention, parse_duration

if TYPE_CHECKING:  # rich is imported by the commands that draw, not at start
    from rich.console import Console
    from rich.progress import Progress

EXIT_OK, EXIT_BROKEN, EXIT_UNREADABLE = 0, 1, 2
DRAIN_SECONDS = 10.0
"""``callbreak serve --drain-seconds``: how long a shutdown may take."""
PING_SECONDS = 5.0
"""``callbreak serve --ping-seconds`` (``web.messages.PING_SECONDS``, not imported at start)."""
PROTOCOL_PING_SECONDS = 20.0
"""uvicorn's WebSocket pings: one every this many seconds, and a client that answers none for as
long after it is dropped. Not shorter: uvicorn reads no frame (a pong included) while the app
is still handling a socket's last message (a hint waiting for the busy pool, a slow store), and
a client that is merely slow must not be dropped for it."""
DEFLATE = False
"""Whether ``callbreak serve`` compresses socket messages unless told (``--deflate``). Off: in
docs/benchmarks.md (issue 40) per-message deflate cost the server about a sixth of its CPU per
action and about 200 kB of memory per room (a compressor kept for each socket), for messages
about 30 times smaller on the wire (a state differs little from the last); a server that pays
for its bandwidth more than its cores turns it on."""


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

    review = commands.add_parser(
        "review",
        help="the expert's review of a seat's calls and cards in a game record",
        description="Weigh every call and card of a seat in a game record with what it knew "
        "(the expert) and, for cards, with every hand known (hindsight); print each decision's "
        "points lost and the summary (docs/review.md). Exit 0 when reviewed, 2 when the record "
        "cannot be read or is not valid, the seat is out of range, or the --json file cannot be "
        "written (said before the review starts).",
    )
    review.add_argument("record", metavar="RECORD.json", help="game record (JSON)")
    who = review.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, default=0, help="the seat to review, 0-3 (default 0)")
    who.add_argument("--all", action="store_true", help="review every seat")
    review.add_argument(
        "--time",
        type=float,
        default=None,
        metavar="S",
        help="seconds of search per decision (default: callbreak.review.DEFAULT_TIME, 0.3)",
    )
    review.add_argument("--seed", type=int, default=0, help="the review's seed (default 0)")
    review.add_argument(
        "--no-hindsight", action="store_true", help="leave out the hindsight (all hands) figures"
    )
    review.add_argument("--json", metavar="FILE", help="also write the review(s) as JSON to FILE")

    arena = commands.add_parser(
        "arena",
        help="compare two players in duplicate matches",
        description="Play A against B on the same deals from every seat, with B's own result "
        "on those deals as the baseline, and report A's mean score difference per match.",
    )
    arena.add_argument("a", metavar="A", help="player spec, e.g. 'expert' or 'expert(time=0.5)'")
    # B is checked by run_arena, not here: argparse's "required: B" would not say that A was
    # read, nor whether A names a player.
    arena.add_argument(
        "b", metavar="B", nargs="*", help="player spec; up to four, one per seat of the field"
    )
    arena.add_argument("--rules", default="strict", help="profile or one-string rules")
    arena.add_argument("--sets", type=int, default=100, help="number of sets (default 100)")
    arena.add_argument("--seed", type=int, default=1, help="seed of the deals and players")
    arena.add_argument(
        "--first-set",
        type=int,
        default=0,
        metavar="N",
        help="number the sets from N (default 0): --first-set 20 --sets 20 plays the sets that "
        "follow a run of 20",
    )
    arena.add_argument("--workers", type=int, default=None, help="processes (default: cores)")
    arena.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    arena.add_argument("--records", metavar="DIR", help="write every match as a game record")
    arena.add_argument(
        "--bot-budget",
        type=float,
        default=1.5,
        metavar="SECONDS",
        help="remote bots' time per round (default 1.5, 0 for no limit)",
    )
    arena.add_argument(
        "--clock",
        type=float,
        default=None,
        metavar="SECONDS",
        help="hold each decision of our players to this wall-clock time, one core each, as a "
        "competition does (default: their cost models, independent of the machine's load)",
    )
    _add_ray(arena, "sets")

    league = commands.add_parser(
        "league",
        help="every player against every other, with ratings",
        description="Play a league file's entrants against each other in duplicate sets (each "
        "pair both ways on shared deals), keep every finished set in a SQLite file (a league "
        "run again plays only the sets it lacks), and write the ratings and every pair's edge "
        "as JSON, Markdown and an SVG chart.",
    )
    league.add_argument("file", metavar="FILE.toml", help="the league file (see docs/leagues.md)")
    league.add_argument("--sets", type=int, help="sets per pair (default: the file's)")
    league.add_argument(
        "--out",
        metavar="DIR",
        help="folder of the results and reports (default: the file's name beside it, "
        "without .toml)",
    )
    league.add_argument("--workers", type=int, default=None, help="processes (default: cores)")
    _add_ray(league, "sets")
    _add_selfplay(commands)
    _add_train(commands)

    bot = commands.add_parser(
        "bot",
        help="serve a player as a Bhoos-protocol bot",
        description="Serve one of our players over HTTP in the Bhoos Smart Bots protocol "
        "(GET /hi, POST /bid, POST /play).",
    )
    bot.add_argument("player", metavar="PLAYER", help="player spec, e.g. 'intermediate'")
    bot.add_argument("--host", default="127.0.0.1")
    bot.add_argument("--port", type=int, default=7000)
    bot.add_argument("--rules", default="bhoos", help="rules the bot assumes (default bhoos)")

    serve = commands.add_parser(
        "serve",
        help="play in the browser and keep score",
        description="Serve the web app: play against the computer, replay matches, keep the "
        "score of a table game.",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--db", metavar="PATH", help="SQLite file (default: the user's data folder)")
    serve.add_argument(
        "--redis",
        metavar="URL",
        help="keep matches and rooms in Redis (redis://HOST:PORT/N), shared by several processes",
    )
    serve.add_argument(
        "--create-rate",
        "--join-rate",
        type=float,
        default=DEFAULT_LIMITS.creations_per_minute,
        metavar="N",
        help="matches, rooms and scoresheets created plus joins allowed per address per minute "
        "(default %(default)g)",
    )
    serve.add_argument(
        "--lookup-rate",
        type=float,
        default=DEFAULT_LIMITS.lookups_per_minute,
        metavar="N",
        help="requests and sockets naming a room, match or scoresheet allowed per address per "
        "minute (default %(default)g)",
    )
    serve.add_argument(
        "--sockets",
        type=int,
        default=DEFAULT_LIMITS.sockets,
        metavar="N",
        help="sockets open at once per address (default %(default)d)",
    )
    serve.add_argument(
        "--message-rate",
        type=float,
        default=20.0,
        metavar="N",
        help="socket messages allowed per connection per second (default 20)",
    )
    serve.add_argument(
        "--deflate",
        choices=["on", "off"],
        default="on" if DEFLATE else "off",
        help="compress the socket messages (per-message deflate, when the browser offers it): "
        "about 30 times fewer bytes for a sixth more CPU per action and about 200 kB more "
        "memory per room; docs/benchmarks.md (default %(default)s)",
    )
    serve.add_argument(
        "--searches",
        type=int,
        default=DEFAULT_LIMITS.searches,
        metavar="N",
        help="computers' searches that may run at once in this process, 1-64; the others wait "
        "their turn, fairly between tables (default %(default)d)",
    )
    serve.add_argument(
        "--client-searches",
        type=int,
        default=DEFAULT_LIMITS.client_searches,
        metavar="N",
        help="such searches at once for the tables one address created, 1 to --searches "
        "(default %(default)d)",
    )
    serve.add_argument(
        "--reviews",
        type=int,
        default=DEFAULT_LIMITS.reviews,
        metavar="N",
        help="processes that review finished matches for their players, at a lower priority "
        "than the tables; N more reviews may wait, beyond that the page says to try again "
        "(default %(default)d)",
    )
    serve.add_argument(
        "--review-time",
        type=float,
        default=DEFAULT_LIMITS.review_time,
        metavar="S",
        help="seconds of search per decision reviewed, 0.01-600 (default %(default)g)",
    )
    serve.add_argument(
        "--pools",
        metavar="PROFILE[:SECONDS],...",
        default=",".join(f"{pool.name}:{pool.turn_seconds}" for pool in DEFAULT_POOLS),
        help="the pools of quick play: a table with strangers under each rules profile, with "
        "its turn clock (default %(default)s; docs/public.md)",
    )
    serve.add_argument(
        "--no-pools", action="store_true", help="no quick play: no pools, nobody waits"
    )
    serve.add_argument(
        "--challenge-secret",
        metavar="FILE",
        help="the daily challenge's secret, at least 32 bytes, read from FILE (the same for "
        "every process; default: one the server makes once and keeps in the store; "
        "docs/deploy.md)",
    )
    serve.add_argument(
        "--bots",
        metavar="ADDRESS,...",
        default="",
        help="remote bots that rooms and matches may seat: exact http://HOST:PORT addresses "
        "and networks such as 10.0.0.0/8 (default: none, since the server calls them)",
    )
    for option, kept, default in (
        ("--keep-finished", "finished matches and rooms, and scoresheets", "30d"),
        ("--keep-lobbies", "rooms never started", "1d"),
        ("--keep-unfinished", "matches and rooms left unfinished", "7d"),
        ("--keep-profiles", "profiles (with their ratings) unused", "52w"),
        ("--keep-standings", "the daily challenge's standings of a day closed", "90d"),
    ):
        serve.add_argument(
            option,
            metavar="TIME",
            default=default,
            help=f"how long {kept} are kept after their last change (or use, or close): 30d, "
            "12h, 90m or never (default %(default)s)",
        )
    serve.add_argument(
        "--proxies",
        metavar="ADDRESS,...",
        default="",
        help="addresses (or networks, 10.0.0.0/8) of reverse proxies whose X-Forwarded-For "
        "names the client (default none: the limits count the direct peer)",
    )
    serve.add_argument(
        "--drain-seconds",
        type=float,
        default=DRAIN_SECONDS,
        metavar="S",
        help="on SIGTERM, hand the rooms over and close every socket (code 1012: reconnect) "
        "within S seconds (default %(default)g)",
    )
    serve.add_argument(
        "--metrics",
        metavar="ADDRESS,...",
        default="",
        help="addresses or networks (127.0.0.1, 10.0.0.0/8) that may read the Prometheus "
        "metrics at /metrics (default none: /metrics answers 404)",
    )
    serve.add_argument(
        "--log-json",
        action="store_true",
        help="write an access log (each request, socket and room event) and the server's "
        "errors to stderr as one JSON object a line",
    )
    serve.add_argument(
        "--ping-seconds",
        type=float,
        default=PING_SECONDS,
        metavar="S",
        help="seconds between the pings each socket hears, by which a page finds a frozen "
        "server (default %(default)g)",
    )

    adopt = commands.add_parser(
        "adopt",
        help="give old matches and scoresheets an owner",
        description="Give every match and scoresheet of the web app's database made before "
        "they had owners a token, and write the tokens file that the History page imports "
        "(Import history), so that a browser holds them again. Run it with the server stopped "
        "(or restart it after). The file opens those matches and sheets: keep it private.",
    )
    adopt.add_argument("--db", metavar="PATH", help="SQLite file (default: the user's data folder)")
    adopt.add_argument(
        "--out", metavar="FILE", help="write the tokens file here (default: standard output)"
    )

    commands.add_parser("rules", help="list the rule profiles", description="List the profiles.")
    _add_challenge(commands)
    return parser


def _add_selfplay(commands: Any) -> None:
    """``callbreak selfplay``: the expert against itself, every decision written as data."""
    selfplay = commands.add_parser(
        "selfplay",
        help="write self-play data: every decision with what its seat knew and the search's values",
        description="Play seeded matches between four players (by default the expert at a tenth "
        "of a second a decision) and write every decision, with the seat's observation, the "
        "legal actions, the search's value of each, and the outcome, into shards of .npz files "
        "(docs/players.md). A run started again with the same settings and folder writes only "
        "the shards it lacks. Exit 0 when done, 1 when a worker failed, 2 for bad arguments, "
        "130 when interrupted.",
    )
    selfplay.add_argument(
        "players",
        metavar="PLAYER",
        nargs="*",
        help="one spec, or four (one per seat); default 'expert(time=0.1, threads=1)'",
    )
    selfplay.add_argument("--out", metavar="DIR", required=True, help="folder of the shards")
    selfplay.add_argument("--rules", default="strict", help="profile or one-string rules")
    size = selfplay.add_mutually_exclusive_group()
    size.add_argument("--matches", type=int, help="matches to play (default 100)")
    size.add_argument(
        "--decisions", type=int, help="about this many decisions (56 a deal), instead of --matches"
    )
    selfplay.add_argument(
        "--shard-size",
        type=int,
        default=10,
        metavar="MATCHES",
        help="matches per shard (default 10); the matches are rounded up to whole shards",
    )
    selfplay.add_argument("--seed", type=int, default=1, help="seed of the deals and players")
    selfplay.add_argument("--workers", type=int, default=None, help="processes (default: cores)")
    _add_ray(selfplay, "shards")


def run_selfplay(args: argparse.Namespace) -> int:
    """Write self-play shards with a progress bar; say what was written and what it cost."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    def fail(message: str) -> int:
        print(f"callbreak selfplay: {message}", file=sys.stderr)
        return EXIT_UNREADABLE

    from callbreak import selfplay

    if not _ray_address_ok("selfplay", args.ray):
        return EXIT_UNREADABLE
    if args.workers is not None and args.workers < 1:
        return fail(f"--workers must be 1 or more, not {args.workers}")
    if not args.out.strip():  # an empty --out was the current folder, said nowhere
        return fail("--out needs a folder")
    try:
        plan = selfplay.make_plan(
            args.players or [selfplay.DEFAULT_PLAYERS],
            rules=args.rules,
            seed=args.seed,
            matches=args.matches,
            decisions=args.decisions,
            shard_matches=args.shard_size,
        )
    except CallbreakError as error:
        return fail(str(error))
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]shards"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[running]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        # Off a terminal the bar draws nothing but leaves an empty line after an error's one
        # line; the shards are said line by line there instead (on_shard).
        disable=not console.is_terminal,
    )
    totals = [0, 0.0]  # decisions and CPU seconds written by this run
    with progress:
        bar = progress.add_task("shards", total=plan.shards, running="")

        def on_start(to_play: int, kept: int) -> None:
            note = f"{kept} kept from before" if kept else ""
            progress.update(bar, completed=kept, running=note)
            if kept:
                print(f"{kept} of {plan.shards} shards kept from before", file=sys.stderr)

        def on_shard(result: selfplay.ShardResult, written: int) -> None:
            totals[0] += result.decisions
            totals[1] += result.cpu_seconds
            rate = totals[0] / max(totals[1], 1e-9)
            running = f"{totals[0]:,} decisions, {rate:.1f} a CPU-second"
            progress.update(bar, advance=1, running=running)
            if not console.is_terminal:
                print(f"shard {result.index}: {running}", file=sys.stderr, flush=True)

        try:
            summary = selfplay.run(
                plan,
                args.out,
                workers=args.workers,
                ray=args.ray,
                on_start=on_start,
                on_shard=on_shard,
            )
        except CallbreakError as error:
            return fail(str(error))
    per_cpu = summary.decisions / summary.cpu_seconds if summary.cpu_seconds else 0.0
    print(
        f"{summary.written} shards written into {args.out} ({summary.kept} kept from before, "
        f"{summary.shards} in the run): {summary.decisions:,} decisions, {summary.searched:,} "
        f"with a choice, in {summary.seconds:,.1f} s; {per_cpu:.2f} decisions a CPU-second "
        f"where they were played",
        flush=True,
    )
    if summary.error:
        print(f"callbreak selfplay: stopped: {summary.error}", file=sys.stderr)
        return EXIT_BROKEN
    return 130 if summary.interrupted else EXIT_OK


def _add_train(commands: Any) -> None:
    """``callbreak train``: the learned player fitted on self-play data."""
    train = commands.add_parser(
        "train",
        help="train the learned player on self-play data (needs callbreak[train])",
        description="Fit the learned player's network (calls and cards) on the decisions of "
        "self-play runs (callbreak selfplay) and write its weights as an .npz the player reads "
        "in numpy (docs/players.md, The learned player). Matches whose number ends in the "
        "--holdout digit are measured, not trained on. Exit 0 when written, 2 for bad "
        "arguments or data (one line).",
    )
    train.add_argument("data", metavar="DIR", nargs="+", help="folders of self-play runs")
    train.add_argument("--out", metavar="FILE", required=True, help="the weights file (.npz)")
    train.add_argument(
        "--outcomes",
        metavar="DIR",
        nargs="+",
        default=[],
        help="runs whose deals teach the calls head only (the tricks hands took), such as the "
        "learned player's own self-play",
    )
    train.add_argument("--epochs", type=int, default=8, help="passes over the data (default 8)")
    train.add_argument("--hidden", type=int, default=256, help="width of the hidden layers")
    train.add_argument("--seed", type=int, default=1, help="seed of the initial weights and order")
    train.add_argument("--threads", type=int, default=1, help="PyTorch's threads (default 1)")
    train.add_argument(
        "--holdout",
        type=int,
        default=9,
        help="matches numbered this modulo 10 are measured, not trained on (-1: none)",
    )


def run_train(args: argparse.Namespace) -> int:
    """Train with a line per epoch; say what was written and how it agrees with the search."""

    def fail(message: str) -> int:
        print(f"callbreak train: {message}", file=sys.stderr)
        return EXIT_UNREADABLE

    try:
        from callbreak import train
    except ImportError as error:  # PyTorch is the train extra's
        return fail(f"needs the train extra: pip install 'callbreak[train]' ({error})")
    if not args.out.endswith(".npz"):
        return fail(f"--out must name an .npz file, not {args.out!r}")
    if not -1 <= args.holdout <= 9:
        return fail(f"--holdout must be -1 to 9, not {args.holdout}")
    options = train.Options(
        hidden=args.hidden,
        epochs=args.epochs,
        seed=args.seed,
        threads=args.threads,
        holdout=args.holdout,
    )

    def on_epoch(epoch: int, loss: float) -> None:
        print(f"epoch {epoch}/{options.epochs}: loss {loss:.4f}", file=sys.stderr, flush=True)

    try:
        trained = train.train(
            args.data, args.out, options, on_epoch=on_epoch, outcomes=args.outcomes
        )
    except CallbreakError as error:
        return fail(str(error))
    measured = ", ".join(f"{key} {value:.4g}" for key, value in trained.measured.items())
    print(
        f"wrote {trained.path}: {trained.rows:,} decisions trained on in {trained.seconds:,.0f} s"
        + (f"; held out: {measured}" if measured else ""),
        flush=True,
    )
    return EXIT_OK


def _add_challenge(commands: Any) -> None:
    challenge = commands.add_parser(
        "challenge",
        help="the daily challenge: check a record against a day's published seed",
        description="The daily challenge's deals are fixed by a seed whose SHA-256 is "
        "published when the day opens and which is itself published when it closes "
        "(docs/public.md).",
    )
    actions = challenge.add_subparsers(dest="challenge", required=True, parser_class=_Parser)
    verify = actions.add_parser(
        "verify",
        help="show that a record's deals are a day's seed's",
        description="Check that every deal of a game record is the deal the day's seed deals "
        "at that point. Exit 0 when they are, 1 when they are not (or the seed is not the "
        "one committed to), 2 when the day, seed or record cannot be read or the record "
        "breaks a rule.",
    )
    verify.add_argument("day", metavar="DAY", help="the day, YYYY-MM-DD (UTC)")
    verify.add_argument("seed", metavar="SEED", help="the day's seed as published: 64 hex digits")
    verify.add_argument("record", metavar="RECORD", help="game record (JSON)")
    verify.add_argument(
        "--commitment",
        metavar="SHA256",
        help="also check that the seed's SHA-256 is the one published when the day opened",
    )


def _add_ray(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help=f"play the {what} as Ray tasks: on the cluster at ADDRESS (HOST:PORT of its head, or "
        "auto), or without ADDRESS on a local Ray started for the run (needs callbreak[cluster])",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "check":
            return run_check(args.files, as_json=args.json)
        if args.command == "rules":
            return run_rules()
        if args.command == "review":
            return run_review(args)
        if args.command == "arena":
            _stop_on_terminate()
            return run_arena(args, list(argv) if argv is not None else sys.argv[1:])
        if args.command == "league":
            _stop_on_terminate()
            return run_league(args, list(argv) if argv is not None else sys.argv[1:])
        if args.command == "selfplay":
            _stop_on_terminate()
            return run_selfplay(args)
        if args.command == "train":
            return run_train(args)
        if args.command == "bot":
            return run_bot(args.player, args.host, args.port, args.rules)
        if args.command == "adopt":
            return run_adopt(args.db, args.out)
        if args.command == "challenge":
            return run_challenge_verify(args.day, args.seed, args.record, args.commitment)
        if args.command == "serve":
            try:
                bots = BotAddresses.parse(args.bots)
            except CallbreakError as error:
                print(f"callbreak serve: --bots: {error}", file=sys.stderr)
                return EXIT_UNREADABLE
            limits = dataclasses.replace(
                DEFAULT_LIMITS,
                bots=bots,
                creations_per_minute=args.create_rate,
                lookups_per_minute=args.lookup_rate,
                sockets=args.sockets,
                messages_per_second=args.message_rate,
                message_burst=max(60.0, 3 * args.message_rate),
                searches=args.searches,
                client_searches=args.client_searches,
                reviews=args.reviews,
                review_queue=args.reviews,
                review_time=args.review_time,
            )
            proxies = [item.strip() for item in args.proxies.split(",") if item.strip()]
            retention = _retention(args)
            if retention is None:
                return EXIT_UNREADABLE
            metrics = [item.strip() for item in args.metrics.split(",") if item.strip()]
            try:
                pools = () if args.no_pools else parse_pools(args.pools)
            except ValueError as error:
                print(f"callbreak serve: --pools: {error}", file=sys.stderr)
                return EXIT_UNREADABLE
            secret = _challenge_secret(args.challenge_secret)
            if secret is False:
                return EXIT_UNREADABLE
            return run_serve(
                Serving(
                    host=args.host,
                    port=args.port,
                    db=args.db,
                    redis_url=args.redis,
                    limits=limits,
                    proxies=proxies,
                    retention=retention,
                    drain_seconds=args.drain_seconds,
                    metrics_from=metrics,
                    log_json=args.log_json,
                    ping_seconds=args.ping_seconds,
                    pools=pools,
                    deflate=args.deflate == "on",
                    challenge_secret=secret or None,
                )
            )
    except KeyboardInterrupt:
        print("callbreak: interrupted", file=sys.stderr)
        return 130
    raise AssertionError(f"unhandled command {args.command}")


def _retention(args: argparse.Namespace) -> Retention | None:
    """The ``--keep-*`` settings; None, with one line said, when one cannot be read."""
    times: dict[str, float | None] = {}
    for name in ("finished", "lobbies", "unfinished", "profiles", "standings"):
        try:
            times[name] = parse_duration(getattr(args, f"keep_{name}"))
        except ValueError as error:
            print(f"callbreak serve: --keep-{name}: {error}", file=sys.stderr)
            return None
    return Retention(**times)


def _challenge_secret(path: str | None) -> bytes | Literal[False] | None:
    """The daily challenge's secret from ``--challenge-secret FILE`` (its bytes, a final line
    end left out); None without the option; False, with one line said, when it cannot be read
    or is too short."""
    if path is None:
        return None
    from callbreak.challenge import MIN_SECRET_BYTES

    try:
        secret = Path(path).read_bytes().rstrip(b"\r\n")
    except OSError as error:
        print(f"callbreak serve: --challenge-secret: {error}", file=sys.stderr)
        return False
    if len(secret) < MIN_SECRET_BYTES:
        print(
            f"callbreak serve: --challenge-secret: {path} holds {len(secret)} bytes; the secret "
            f"needs at least {MIN_SECRET_BYTES} (such as: openssl rand -hex 32 > {path})",
            file=sys.stderr,
        )
        return False
    return secret


def _stop_on_terminate() -> None:
    """Make SIGTERM (``kill``, a service manager, ``timeout``) stop an arena or a league as
    Ctrl-C does: the finished sets are reported (and a league's kept) and the worker processes
    are stopped. Without it the parent dies at once and each worker, finding no one to send its
    result to, prints a BrokenPipe traceback."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def run_arena(args: argparse.Namespace, argv: list[str]) -> int:
    """Run a duplicate comparison with a progress bar and print the report."""
    from rich.console import Console

    from callbreak import arena

    if len(args.b) > 4:
        print("callbreak arena: give at most four B specs, one per seat", file=sys.stderr)
        return EXIT_UNREADABLE
    # Every spec is read before the progress bar starts: an error is then one line, with no
    # blank line left by the bar behind it.
    problems = []
    for spec in (args.a, *args.b):
        try:
            arena.check_spec(spec)
        except CallbreakError as error:
            problems.append(str(error))
    if not args.b:
        problems.append(
            "give two players, A and B, such as 'callbreak arena expert advanced' "
            f"(only A, {args.a!r}, was given)"
        )
    if problems:
        print(f"callbreak arena: {'; '.join(problems)}", file=sys.stderr)
        return EXIT_UNREADABLE
    if not _ray_address_ok("arena", args.ray):
        return EXIT_UNREADABLE
    console = Console(stderr=True)
    command = "callbreak " + " ".join(_quote(a) for a in argv)
    with _sets_progress(console) as progress:
        bar = progress.add_task("sets", total=args.sets, running="starting Ray" if args.ray else "")

        every = max(1, args.sets // 20)

        def on_set(_result: arena.SetResult, so_far: Sequence[arena.SetResult]) -> None:
            diffs = [r.diff for r in so_far]
            low, high = arena.confidence_interval(diffs)
            mean = sum(diffs) / len(diffs)
            interval = f" [{low:+.2f}, {high:+.2f}]" if len(diffs) > 1 else ""
            running = f"mean {mean:+.2f}{interval}"
            progress.update(bar, advance=1, running=running)
            if not console.is_terminal and len(diffs) % every == 0:
                # No live bar when the output goes to a file: a line now and then instead.
                print(f"sets {len(diffs)}/{args.sets}: {running}", file=sys.stderr, flush=True)

        try:
            result = arena.compare(
                args.a,
                args.b,
                rules=args.rules,
                sets=args.sets,
                seed=args.seed,
                first_set=args.first_set,
                workers=args.workers,
                options=arena.ArenaOptions(
                    ray=args.ray,
                    clock=args.clock,
                    bot_budget=args.bot_budget,
                    records=args.records,
                    on_set=on_set,
                    command=command,
                ),
            )
        except CallbreakError as error:
            print(f"callbreak arena: {error}", file=sys.stderr)
            return EXIT_UNREADABLE
    _arena_report(Console(highlight=False, soft_wrap=True), result)
    if args.json:
        try:
            with open(args.json, "w") as file:
                json.dump(result.to_json(), file, indent=1)
                file.write("\n")
        except OSError as error:
            print(f"callbreak arena: cannot write {args.json}: {error}", file=sys.stderr)
            return EXIT_UNREADABLE
    if result.error:
        return EXIT_BROKEN
    return 130 if result.interrupted else EXIT_OK


def run_league(args: argparse.Namespace, argv: list[str]) -> int:
    """Run a league with a progress bar, print the standings and write the reports."""
    from rich.console import Console

    from callbreak import league

    if not _ray_address_ok("league", args.ray):
        return EXIT_UNREADABLE
    if args.sets is not None and not 1 <= args.sets <= 1_000_000:
        print(f"callbreak league: --sets must be 1 to 1,000,000, not {args.sets}", file=sys.stderr)
        return EXIT_UNREADABLE
    console = Console(stderr=True)
    command = "callbreak " + " ".join(_quote(a) for a in argv)
    try:
        entrants = league.load_league(args.file)
        out = Path(args.out) if args.out else Path(args.file).with_suffix("")
        if out.exists() and not out.is_dir():
            raise league.LeagueError(f"the output folder {out} is a file")
        store = league.ResultsStore(out / "results.sqlite")
    except CallbreakError as error:
        print(f"callbreak league: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    with _sets_progress(console) as progress:
        bar = progress.add_task("sets", total=None, running="")
        done = [0, 1]

        def on_start(to_play: int, kept: int) -> None:
            done[1] = max(1, to_play)
            kept_text = f"{kept} kept from before" if kept else ""
            starting = ", starting Ray" if args.ray and to_play else ""
            progress.update(bar, total=to_play, running=f"{kept_text}{starting}".strip(", "))
            if kept:
                print(f"{kept} arena sets kept from before", file=sys.stderr, flush=True)

        def on_set(key: tuple[str, str, int], _result: object) -> None:
            done[0] += 1
            a, b, index = key
            progress.update(bar, advance=1, running=f"{a} against {b}, set {index + 1}")
            every = max(1, done[1] // 20)
            if not console.is_terminal and done[0] % every == 0:
                print(f"arena sets {done[0]}/{done[1]}", file=sys.stderr, flush=True)

        try:
            result = league.run_league(
                entrants,
                store,
                sets=args.sets,
                workers=args.workers,
                ray=args.ray,
                on_start=on_start,
                on_set=on_set,
                command=command,
            )
        except CallbreakError as error:
            print(f"callbreak league: {error}", file=sys.stderr)
            return EXIT_UNREADABLE
        finally:
            store.close()
    _league_report(Console(highlight=False, soft_wrap=True), result)
    try:
        written = result.write(out)
    except CallbreakError as error:
        print(f"callbreak league: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(f"written: {', '.join(str(path) for path in written)}", flush=True)
    if result.error:
        return EXIT_BROKEN
    return 130 if result.interrupted else EXIT_OK


def _league_report(console: object, result: object) -> None:
    from rich.console import Console
    from rich.table import Table

    from callbreak.league import Standings

    assert isinstance(console, Console) and isinstance(result, Standings)
    if result.error:
        console.print(f"[red]stopped: {result.error}[/]")
    if result.interrupted:
        console.print("[yellow]interrupted: the standings cover the sets finished[/]")
    league = result.league
    console.print(
        f"league {league.name}: rules {league.rules}, seed {league.seed}, {result.sets} sets per "
        f"pair both ways, {result.played} arena sets played"
    )
    table = Table(title="ratings (OpenSkill) and edges in points per match")
    for column in ("rank", "entrant", "rating", "95% interval", "edge", "calls made"):
        table.add_column(column, justify="left" if column == "entrant" else "right")
    for rank, rating in enumerate(result.ratings, 1):
        low, high = rating.interval
        table.add_row(
            str(rank),
            rating.label,
            f"{rating.mu:.2f}",
            f"{low:.2f} to {high:.2f}",
            _signed(rating.edge),
            _pct(rating.calls_made),
        )
    console.print(table)
    pairs = Table(title="pairs: X's edge over Y per match, both ways on the same deals")
    for column in ("X", "Y", "sets", "X's edge", "95% CI"):
        pairs.add_column(column, justify="left" if column in "XY" else "right")
    for pair in result.pairs:
        low, high = pair.ci95
        interval = f"{_signed(low)} to {_signed(high)}" if pair.sets > 1 else "-"
        pairs.add_row(pair.x, pair.y, str(pair.sets), _signed(pair.mean), interval)
    console.print(pairs)
    console.print(f"reproduce: {result.command}")


def _signed(value: float) -> str:
    import math

    return f"{value:+.2f}" if math.isfinite(value) else "-"


def _ray_address_ok(command: str, address: str | None) -> bool:
    """Whether ``--ray``'s address has a usable form; if not, says so in one line."""
    from callbreak.workers import check_address

    if address is None:
        return True
    try:
        check_address(address)
    except CallbreakError as error:
        print(f"callbreak {command}: {error}", file=sys.stderr)
        return False
    return True


def _sets_progress(console: Console) -> Progress:
    """The progress bar of sets played (arena and league), with what is running beside it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]sets"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[running]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _arena_report(console: object, result: object) -> None:
    from rich.console import Console

    from callbreak.arena import Result, format_times

    assert isinstance(console, Console) and isinstance(result, Result)
    for note in result.notes:
        console.print(f"note: {note}")
    if result.error:
        console.print(f"[red]stopped: {result.error}[/]")
    if result.interrupted:
        console.print(f"[yellow]interrupted: the report covers the {result.sets} sets played[/]")
    if not result.sets:
        console.print("no set was played")
        return
    low, high = result.ci95
    verdict = "A is stronger" if low > 0 else "B is stronger" if high < 0 else "no clear difference"
    a, b = result.a_stats, result.b_stats
    console.print(f"A = {result.a}\nB = {result.b}\nrules {result.rules}, seed {result.seed}")
    played, numbers = result.set_indices, ""
    if played and played != tuple(range(len(played))):
        # Not the sets 0 to N-1 a plain run plays: say which, so no one pairs it with those.
        gaps = "" if played[-1] - played[0] + 1 == len(played) else " with gaps"
        numbers = f" (numbers {played[0]} to {played[-1]}{gaps})"
    console.print(f"{result.sets} sets{numbers}, {result.matches} matches")
    console.print(
        f"A's mean score difference per match: {result.mean_diff:+.2f} "
        f"(95% CI {low:+.2f} to {high:+.2f}): {verdict}"
    )
    console.print(f"A's share of first places: {result.a_first_share:.1%} (an equal player: 25%)")
    for name, stats in (("A", a), ("B", b)):
        calls = f"calls made {_pct(stats['calls_made'])}, mean call {_num(stats['mean_call'])}"
        faults = f", faults {int(stats['faults'] or 0)}" if stats["faults"] else ""
        console.print(
            f"{name}: {calls}, mean overtricks {_num(stats['mean_overtricks'])}, lost to broken "
            f"calls {_num(stats['broken_loss'])} per deal, decision time {format_times(stats)}"
            f"{faults}"
        )
    console.print(f"reproduce: {result.command}")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def run_bot(spec: str, host: str, port: int, rules_text: str) -> int:
    """Serve a player as a bot until interrupted."""
    from callbreak.bots.server import serve
    from callbreak.rules import Rules
    from callbreak.seating import close, make_player
    from callbreak.warmup import needs_kernel

    try:
        rules = Rules.parse(rules_text)
        close(make_player(spec))  # a bad spec is an error now, not at the first request
    except CallbreakError as error:
        print(f"callbreak bot: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    if not 0 < port < 65536:
        print(f"callbreak bot: the port must be 1-65535, not {port}", file=sys.stderr)
        return EXIT_UNREADABLE
    if needs_kernel([spec]):
        # Before serving: the host polls /hi until the bot is ready, and a kernel still loading
        # at the first request would eat the round's time budget.
        _announced_bot_warm_up()
    try:
        serve(spec, host, port, rules)
    except OSError as error:
        print(
            f"callbreak bot: cannot serve on {host}:{port}: {error.strerror or error}",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    return EXIT_OK


@dataclasses.dataclass(frozen=True)
class Serving:
    """What ``callbreak serve`` was told: where to listen and keep data, and the operator's
    settings (the options of the same names)."""

    host: str
    port: int
    db: str | None
    """The SQLite file (None: the default place)."""
    redis_url: str | None = None
    limits: Limits | None = None
    proxies: Sequence[str] = ()
    """The addresses whose X-Forwarded-For is believed."""
    retention: Retention | None = None
    """How long stored tables are kept."""
    drain_seconds: float = DRAIN_SECONDS
    """SIGTERM drains the server within this time."""
    metrics_from: Sequence[str] = ()
    """Those that may read /metrics."""
    log_json: bool = False
    ping_seconds: float = PING_SECONDS
    """Sockets hear a ping this often."""
    pools: Sequence[Pool] = DEFAULT_POOLS
    """Quick play's pools (none: ``--no-pools``)."""
    deflate: bool = DEFLATE
    """Whether socket messages are compressed (per-message deflate)."""
    challenge_secret: bytes | None = None
    """The daily challenge's secret (None: one kept in the store)."""


def run_serve(serving: Serving) -> int:
    """Serve the web app as ``serving`` says until interrupted."""
    import sqlite3

    from callbreak.web.app import create_app
    from callbreak.web.store import default_path

    host, port, redis_url, limits = serving.host, serving.port, serving.redis_url, serving.limits
    drain_seconds, ping_seconds = serving.drain_seconds, serving.ping_seconds
    metrics_from = serving.metrics_from
    path = serving.db or str(default_path())
    if not 0 < port < 65536:
        print(f"callbreak serve: the port must be 1-65535, not {port}", file=sys.stderr)
        return EXIT_UNREADABLE
    if limits is not None and not (
        min(limits.creations_per_minute, limits.lookups_per_minute, limits.messages_per_second) > 0
        and limits.sockets > 0
    ):
        print(
            "callbreak serve: --create-rate, --lookup-rate, --message-rate and --sockets must be "
            "above 0",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    if limits is not None and not (1 <= limits.reviews <= 64 and 0.01 <= limits.review_time <= 600):
        print(
            "callbreak serve: --reviews must be 1-64 and --review-time 0.01-600 seconds",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    if limits is not None and not 1 <= limits.client_searches <= limits.searches <= 64:
        print(
            "callbreak serve: --searches must be 1-64 and --client-searches 1 to --searches",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    if not (0 < drain_seconds <= 600 and 0 < ping_seconds <= 300):
        print(
            "callbreak serve: --drain-seconds must be above 0 and at most 600, --ping-seconds "
            "above 0 and at most 300",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    for network in metrics_from:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            print(
                "callbreak serve: --metrics takes addresses or networks such as 127.0.0.1 or "
                f"10.0.0.0/8, not {network!r}",
                file=sys.stderr,
            )
            return EXIT_UNREADABLE
    trusted: list[str] = []
    for proxy in serving.proxies:
        try:  # uvicorn would take a mistyped address as a name that never matches
            trusted.append(
                str(ipaddress.ip_network(proxy, strict=False))
                if "/" in proxy
                else str(ipaddress.ip_address(proxy))
            )
        except ValueError:
            print(
                "callbreak serve: --proxies takes addresses or networks such as 127.0.0.1 or "
                f"10.0.0.0/8, not {proxy!r}",
                file=sys.stderr,
            )
            return EXIT_UNREADABLE
    if redis_url is not None:
        import redis

        try:
            redis.Redis.from_url(redis_url, socket_timeout=5).ping()
        except (redis.RedisError, ValueError) as error:
            print(f"callbreak serve: cannot use Redis at {redis_url}: {error}", file=sys.stderr)
            return EXIT_UNREADABLE
    # The port is taken before anything is said to run on it: a port in use is one line and
    # exit status 2, never "Call Break is at ..." followed by uvicorn's own failure.
    try:
        listener = _listen(host, port)
    except OSError as error:
        print(f"callbreak serve: {_bind_failure(host, port, error)}", file=sys.stderr)
        return EXIT_UNREADABLE
    with listener:
        try:
            app = create_app(
                path,
                redis_url,
                limits or Limits(),
                serving.retention or Retention(),
                metrics_from=metrics_from,
                ping_seconds=ping_seconds,
                pools=serving.pools,
            )
        except (OSError, sqlite3.Error) as error:
            print(f"callbreak serve: cannot open the database {path}: {error}", file=sys.stderr)
            return EXIT_UNREADABLE
        if serving.challenge_secret is not None:
            app.state.challenge.use(serving.challenge_secret)
        served = _Served(
            host, port, path, redis_url, trusted, drain_seconds, serving.log_json, serving.deflate
        )
        return _serve_on(listener, app, served)


@dataclasses.dataclass(frozen=True)
class _Served:
    """How ``callbreak serve`` runs the app."""

    host: str
    port: int
    path: str
    redis_url: str | None
    trusted: list[str]
    drain_seconds: float
    log_json: bool
    deflate: bool


def _serve_on(
    listener: socket.socket,
    app: Any,  # the web app (an ASGI app: cli names no starlette type, docs/architecture.md)
    served: _Served,
) -> int:
    """Serve ``app`` on the socket already bound to ``host:port`` until interrupted."""
    import asyncio
    import logging
    import math
    import threading
    import time

    import uvicorn

    from callbreak.web import collector
    from callbreak.web.accesslog import ACCESS, JsonLines
    from callbreak.web.messages import MAX_FRAME_BYTES
    from callbreak.web.transport import BoundedWebSocket

    host, port, redis_url, trusted = served.host, served.port, served.redis_url, served.trusted
    kept = (
        f"matches and rooms in Redis at {redis_url}"
        if redis_url
        else f"matches kept in {served.path}"
    )
    print(f"Call Break is at http://{host}:{port}/ ({kept}); Ctrl-C stops it", flush=True)
    # The computer players' compiled kernel loads in the background, so the first match does
    # not stall on it (on a fresh install it is compiled once, which takes a while).
    threading.Thread(target=_announced_warm_up, name="warm-up", daemon=True).start()
    # Full garbage collections on the upkeep's schedule, not Python's (web.collector): with
    # many rooms each one holds up every table for hundreds of milliseconds.
    collector.take_over()
    # What failed inside the server (logger callbreak.web) goes to stderr, never to a client.
    if served.log_json:
        # Every line one JSON object, uvicorn's own included (log_config=None lets its loggers
        # pass to this handler); the access log is written only then.
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonLines())
        logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
        ACCESS.setLevel(logging.INFO)
    else:
        logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        log_config=None if served.log_json else uvicorn.config.LOGGING_CONFIG,
        access_log=False,  # the app's own (web.accesslog), with --log-json
        # The protocol's pings find the clients that went away without closing (a phone out
        # of reach); the app's own pings (web.messages) let the pages find a frozen server.
        ws_ping_interval=PROTOCOL_PING_SECONDS,
        ws_ping_timeout=PROTOCOL_PING_SECONDS,
        # Past the drain (_DrainingServer.shutdown), what is left of the bound.
        timeout_graceful_shutdown=math.ceil(served.drain_seconds),
        # A frame over this closes its socket as it arrives, unread: uvicorn would
        # otherwise hold up to 16 MiB of it before the app's own 4 kB check.
        ws_max_size=MAX_FRAME_BYTES,
        # ... and a peer that pings without reading its pongs is dropped (web.transport).
        ws=BoundedWebSocket,
        ws_per_message_deflate=served.deflate,
        # X-Forwarded-For names the client only when a proxy we were told of sent it;
        # from anyone else it would let a client pick the address its limits count.
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
        server_header=False,
    )

    class DrainingServer(uvicorn.Server):
        """uvicorn's server; its shutdown (SIGTERM, Ctrl-C) stops listening, hands the tables
        over and then lets uvicorn close the sockets (1012) and the app, all within the
        drain's bound."""

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            started = time.monotonic()
            seconds = served.drain_seconds
            print(f"Stopping: handing the rooms over (at most {seconds:g} s)", flush=True)
            for server in self.servers:  # no new connection from here on
                server.close()
            for listening in sockets or []:
                listening.close()
            try:
                # At most half the bound: a store out of reach must leave the rest for the
                # sockets to be closed and the requests in flight to end.
                async with asyncio.timeout(seconds / 2):
                    await app.state.drain.start()
            except TimeoutError:
                print("callbreak serve: the store did not answer; leases left to run out")
            left = seconds - (time.monotonic() - started)
            # A second is kept for the app's own shutdown (closing the store) after uvicorn's.
            self.config.timeout_graceful_shutdown = max(0, int(left - 1.0))
            await super().shutdown(sockets)

    DrainingServer(config).run(sockets=[listener])
    return EXIT_OK


def _listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``, as uvicorn binds one (OSError when it cannot be)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
    except OSError:
        listener.close()
        raise
    listener.set_inheritable(True)
    return listener


def _bind_failure(host: str, port: int, error: OSError) -> str:
    """Why ``host:port`` cannot be served, in one line."""
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is in use (another server, or another callbreak serve?): "
            "stop it, or choose another port with --port"
        )
    if error.errno == errno.EACCES:
        return f"port {port} on {host} needs privileges this user lacks: choose one above 1023"
    return f"cannot serve on {host}:{port}: {error.strerror or error}"


def run_adopt(db: str | None, out: str | None) -> int:
    """Give the database's matches and sheets without an owner a token; write the tokens file."""
    import contextlib

    from callbreak.web.owners import adopt
    from callbreak.web.store import default_path

    path = db or str(default_path())
    with contextlib.ExitStack() as stack:
        target: TextIO = sys.stdout
        if out is not None:
            try:
                # Opened before any token is made: a token no file holds would lock its match
                # away for good. The file opens every match and sheet in it: its owner's only.
                flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                target = stack.enter_context(open(os.open(out, flags, 0o600), "w"))
            except OSError as error:
                reason = error.strerror or error
                print(f"callbreak adopt: cannot write {out}: {reason}", file=sys.stderr)
                return EXIT_UNREADABLE
        try:
            tokens = adopt(path)
        except CallbreakError as error:
            print(f"callbreak adopt: {error}", file=sys.stderr)
            return EXIT_UNREADABLE
        target.write(json.dumps(tokens, indent=1) + "\n")
    matches, sheets = len(tokens["matches"]), len(tokens["sheets"])
    print(
        f"callbreak adopt: {matches} match(es) and {sheets} scoresheet(s) of {path} got a token; "
        "import the file on the History page (and restart a server that is running)",
        file=sys.stderr,
    )
    return EXIT_OK


COMPILE_SIGN = 3.0
"""Seconds after which a warm-up whose stand-in is still not ready is compiling, not loading the
cache of an earlier start (which readies it within about a second)."""


def _compile_note(serving: Callable[[], bool]) -> str | None:
    """What to say once COMPILE_SIGN seconds of the warm-up have passed: that a fresh install
    compiles, when the stand-in is still not ready (``serving`` false); else nothing."""
    from callbreak.warmup import STAND_IN

    if serving():
        return None
    return (
        "Compiling the computer players (a fresh install does it once, in about half a minute; "
        f"until then the {STAND_IN} level plays for the searching ones at the browser's tables)..."
    )


def _bot_compile_note(serving: Callable[[], bool]) -> str | None:
    """What ``callbreak bot`` says once COMPILE_SIGN seconds of its warm-up have passed: that a
    fresh install compiles, when the first functions it loads (the stand-in's, as for
    :func:`_compile_note`) are still not ready (``serving`` false); else nothing. Its practice
    deal goes on after them, several seconds on a warm start too."""
    if serving():
        return None
    return (
        "callbreak bot: compiling the search kernel (a fresh install does it once, in about "
        "half a minute)..."
    )


def _announced_warm_up(compile_sign: float = COMPILE_SIGN) -> None:
    """Load the kernel, saying so, and that it compiles only when it does (a fresh install):
    the search levels are then not ready at once."""
    from callbreak import warmup

    _said_warm_up(
        "Loading the computer players...",
        lambda: _compile_note(warmup.serving),
        "The computer players are ready ({seconds:.0f} s)",
        sys.stdout,
        compile_sign,
    )


def _announced_bot_warm_up(compile_sign: float = COMPILE_SIGN) -> None:
    """``callbreak bot``'s warm-up, said on the standard error as :func:`_announced_warm_up`
    says the server's: loading, compiling only when it does, ready."""
    from callbreak import warmup

    _said_warm_up(
        "callbreak bot: loading the search kernel; /hi answers when it is ready...",
        lambda: _bot_compile_note(warmup.serving),
        "callbreak bot: ready ({seconds:.0f} s)",
        sys.stderr,
        compile_sign,
    )


def _said_warm_up(
    loading: str,
    note: Callable[[], str | None],
    ready: str,
    stream: TextIO,
    compile_sign: float,
) -> None:
    """Warm the kernel up between the lines ``loading`` and ``ready`` (its {seconds} filled),
    with ``note``'s words between them if it has any once ``compile_sign`` seconds have passed
    (a warm start, loading the cache, is ready well before: it prints two lines)."""
    from callbreak import warmup

    print(loading, file=stream, flush=True)

    def say_note() -> None:
        words = note()
        if words:
            print(words, file=stream, flush=True)

    timer = threading.Timer(compile_sign, say_note)
    timer.daemon = True
    timer.start()
    try:
        seconds = warmup.warm_up()
    finally:
        timer.cancel()
    print(ready.format(seconds=seconds), file=stream, flush=True)


def run_rules() -> int:
    """Print each profile with its one-line summary."""
    from rich.console import Console

    console = Console()
    for name, rules in PROFILES.items():
        console.print(f"[bold]{name}[/bold]: {rules.summary()}", highlight=False, soft_wrap=True)
    return EXIT_OK


def run_review(args: argparse.Namespace) -> int:
    """Review one seat (or every seat) of a record with a progress bar; print the tables."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from callbreak import review

    def fail(message: str) -> int:
        print(f"callbreak review: {message}", file=sys.stderr)
        return EXIT_UNREADABLE

    time = review.DEFAULT_TIME if args.time is None else args.time
    seats = [0, 1, 2, 3] if args.all else [args.seat]
    if args.json and (problem := _unwritable(args.json)):
        # Said before the review, which may take minutes, rather than after it.
        return fail(f"cannot write {args.json}: {problem}")
    try:
        record = load(args.record)
    except CallbreakError as error:
        return fail(f"{args.record}: {error}")
    console = Console(highlight=False, soft_wrap=True)
    errors = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=not errors.is_terminal,  # off a terminal it leaves only an empty line
    )
    reviews = []
    try:
        for seat in seats:
            bar = progress.add_task(f"seat {seat}", total=None)

            def on_decision(done: int, total: int, bar: Any = bar) -> None:
                # Shown from the first decision on: a record or seat refused leaves one line.
                if not progress.live.is_started:
                    progress.start()
                progress.update(bar, completed=done, total=total)

            try:
                reviews.append(
                    review.review(
                        record,
                        seat,
                        time=time,
                        seed=args.seed,
                        hindsight=not args.no_hindsight,
                        progress=on_decision,
                    )
                )
            except CallbreakError as error:
                return fail(f"{args.record}: {error}")
    finally:
        if progress.live.is_started:
            progress.stop()
    for result in reviews:
        _review_report(console, result)
    if args.json:
        data: Any = reviews[0].to_json() if len(reviews) == 1 else [r.to_json() for r in reviews]
        try:
            with open(args.json, "w") as file:
                json.dump(data, file, indent=1)
                file.write("\n")
        except OSError as error:
            return fail(f"cannot write {args.json}: {error}")
    return EXIT_OK


def _unwritable(path: str) -> str | None:
    """Why a file cannot be written at ``path`` (a folder, a folder missing, no permission),
    or None when it likely can."""
    if os.path.isdir(path):
        return "it is a folder"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"there is no folder {folder}"
    allowed = os.access(path if os.path.exists(path) else folder, os.W_OK)
    return None if allowed else "permission denied"


def _review_report(console: object, result: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    assert isinstance(console, Console)
    hindsight = result.summary.hindsight_lost is not None
    table = Table(title=f"Seat {result.seat} ({result.player}): {result.time:g} s a decision")
    for column in ("deal", "trick", "made", "best", "lost"):
        table.add_column(column, justify="right" if column in ("deal", "trick", "lost") else "left")
    if hindsight:
        table.add_column("hindsight best")
        table.add_column("hindsight lost", justify="right")
    table.add_column("note")
    costliest = set(result.summary.costliest)
    for index, decision in enumerate(result.decisions):
        note = []
        if decision.forced:
            note.append("only choice")
        if decision.stand_in:
            note.append(f"stand-in ({decision.stand_in})")
        if index in costliest:
            note.append("costliest")
        if decision.kind == "call" and decision.distribution:
            mean = sum(n * p for n, p in enumerate(decision.distribution))
            note.append(f"expects {mean:.1f} tricks")
        made = f"call {decision.made}" if decision.kind == "call" else decision.made
        row = [
            str(decision.deal),
            "" if decision.trick is None else str(decision.trick),
            made,
            decision.best,
            f"{decision.lost:.2f}",
        ]
        if hindsight:
            lost = decision.hindsight_lost
            row += [decision.hindsight_best or "", "" if lost is None else f"{lost:.2f}"]
        table.add_row(*row, ", ".join(note), style="bold red" if index in costliest else None)
    console.print(table)
    summary = Table(title="Summary (points lost; hindsight: with every hand known)")
    for column in ("deal", "calls", "cards", "hindsight", "accuracy"):
        summary.add_column(column, justify="right")
    lines = [(str(number), s) for number, s in result.deals.items()]
    for name, s in [*lines, ("match", result.summary)]:
        summary.add_row(
            name,
            f"{s.calls_lost:.2f}",
            f"{s.cards_lost:.2f}",
            "" if s.hindsight_lost is None else f"{s.hindsight_lost:.2f}",
            f"{s.accuracy:.0f}",
        )
    console.print(summary)
    for rank, index in enumerate(result.summary.costliest, 1):
        decision = result.decisions[index]
        where = f"deal {decision.deal}" + (f", trick {decision.trick}" if decision.trick else "")
        console.print(
            f"{rank}. {where}: {decision.made} for {decision.best}, {decision.lost:.2f} points"
        )


def run_challenge_verify(day: str, seed: str, path: str, committed: str | None) -> int:
    """Say in one line whether the record's deals are the day's seed's."""
    from callbreak import challenge

    try:
        when, seed = challenge.parse_day(day), challenge.parse_seed(seed)
    except CallbreakError as error:
        print(f"callbreak challenge verify: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        verdict = challenge.verify(when, seed, load(path), committed)
    except CallbreakError as error:
        print(f"callbreak challenge verify: {path}: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(f"{path}: {verdict.message}")
    return EXIT_OK if verdict.ok else EXIT_BROKEN


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
            legal = f" (legal: {' '.join(error.legal_texts(pretty=True))})"
        verdict = f"[bold red]{path}: breaks a rule[/] in {where}: "
        console.print(f"{verdict}{action}{error.message}{legal}", soft_wrap=True)
        return
    # The verdict is its own line, not the table's title: a title wraps at the table's
    # width, which would split a long path from "valid".
    console.print(f"{path}: valid ({result.rules})", soft_wrap=True)
    # Tricks won/call: the order of the browser's badges, summaries and scoresheet.
    table = Table(caption="each deal: tricks won/call and points")
    table.add_column("deal", justify="right")
    for seat, name in enumerate(names):
        table.add_column(f"{seat} {name}", justify="right")
    played = [deal for deal in result.deals if deal.phase is Phase.OVER]
    for number, deal in enumerate(played, 1):
        cells = [
            f"{deal.won[seat]}/{deal.calls[seat]}  {format_tenths(score)}"
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
