"""The `callbreak` command, run as a real process: check on legal, illegal and unreadable files."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from callbreak.record import Record, check, load, to_data
from callbreak.web.limits import DEFAULT
from tests.helpers import callbreak_serve
from tests.test_record import _first_illegal_substitution, played_match

EXAMPLE = Path(__file__).parent.parent / "examples" / "strict-match.json"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "callbreak", *args], capture_output=True, text=True, timeout=60
    )


def write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    valid = to_data(Record.from_match(played_match("classic", 8)))
    broken = to_data(Record.from_match(played_match("classic", 8)))
    _first_illegal_substitution(broken)
    return {
        "valid": write(tmp_path / "valid.json", valid),
        "broken": write(tmp_path / "broken.json", broken),
        "not_json": write(tmp_path / "not.json", "{not json"),
        "bad_card": write(tmp_path / "card.json", _with_bad_card(valid)),
        "bad_profile": write(tmp_path / "profile.json", valid | {"rules": "bridge"}),
    }


def _with_bad_card(data: dict[str, Any]) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    copy["deals"][0]["hands"][0][0] = "ZH"
    return copy


def test_example_record_is_valid() -> None:
    result = run("check", str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    assert "valid (strict)" in result.stdout and "total" in result.stdout


def test_check_writes_tricks_won_before_the_call() -> None:
    # One order everywhere (the table's badges, its summaries, the scoresheet): tricks/call.
    result = run("check", str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    assert "tricks won/call and points" in result.stdout
    first = check(load(str(EXAMPLE))).deals[0]
    cells = [f"{first.won[seat]}/{first.calls[seat]}" for seat in range(4)]
    row = next(line for line in result.stdout.splitlines() if line.strip("│┃ ").startswith("1 "))
    assert all(cell in row for cell in cells), (row, cells)
    # The example's first deal is one where some call and tricks differ: the order shows.
    assert any(first.won[seat] != first.calls[seat] for seat in range(4))


def test_arena_with_one_player_says_what_is_missing_and_what_is_wrong() -> None:
    result = run("arena", "foo")
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "unknown player 'foo'" in lines[0] and "give two players, A and B" in lines[0]
    assert "required" not in lines[0]


def test_arena_with_an_unknown_player_says_it_in_one_line() -> None:
    result = run("arena", "foo", "bar")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n"), repr(result.stderr)
    assert "unknown player 'foo'" in result.stderr and "unknown player 'bar'" in result.stderr


def test_verdict_stays_on_one_line_for_a_long_path(tmp_path: Path) -> None:
    deep = tmp_path / ("a-rather-long-folder-name-" * 3) / "strict-match.json"
    deep.parent.mkdir()
    deep.write_text(EXAMPLE.read_text())
    result = run("check", str(deep))
    assert result.returncode == 0, result.stderr
    assert f"{deep}: valid (strict)" in result.stdout.splitlines()


def test_json_lines_one_per_file_in_order(files: dict[str, str]) -> None:
    result = run("check", "--json", files["valid"], files["broken"], files["valid"])
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    verdicts = [json.loads(line) for line in lines]
    assert [v["valid"] for v in verdicts] == [True, False, True]
    assert set(verdicts[1]["error"]) == {"deal", "trick", "seat", "card", "message", "legal"}
    assert result.stderr == ""


def test_readable_break_report(files: dict[str, str]) -> None:
    result = run("check", files["broken"])
    assert result.returncode == 1
    assert "breaks a rule" in result.stdout and "legal:" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def _calling_break(data: dict[str, Any], kind: str) -> dict[str, Any]:
    """``data`` with a missing call or a wrongful redeal claim in its first deal."""
    broken = json.loads(json.dumps(data))
    deal = broken["deals"][0]
    if kind == "missing call":
        deal["calls"][deal["dealer"]] = None
    else:
        deal["calls"], deal["tricks"], deal["thrown_in"] = [None] * 4, [], "spadeless"
    return broken


@pytest.mark.parametrize("kind", ["missing call", "redeal claim"])
def test_calling_breaks_list_the_legal_calls(tmp_path: Path, kind: str) -> None:
    valid = to_data(Record.from_match(played_match("classic", 8)))
    path = write(tmp_path / "calling.json", _calling_break(valid, kind))
    calls = list(range(1, 14))  # classic calls run from 1 to 13
    result = run("check", "--json", path)
    assert result.returncode == 1, result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["call"] is None and "card" not in error
    assert error["legal"] == calls
    result = run("check", path)
    assert result.returncode == 1, result.stderr
    assert f"(legal: {' '.join(map(str, calls))})" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("not_json", "not JSON"),
        ("bad_card", "unknown card 'ZH'"),
        ("bad_profile", "unknown profile 'bridge'"),
    ],
)
def test_unreadable_files_exit_2_with_one_line(
    files: dict[str, str], name: str, words: str
) -> None:
    result = run("check", files[name])
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and files[name] in lines[0] and words in lines[0]
    assert "Traceback" not in result.stderr


def test_unreadable_in_json_mode_still_prints_one_line(files: dict[str, str]) -> None:
    result = run("check", "--json", files["valid"], files["not_json"], files["broken"])
    assert result.returncode == 2
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["valid"] for line in lines] == [True, False, False]
    assert lines[1]["readable"] is False and "not JSON" in lines[1]["error"]["message"]


def test_missing_file_and_directory(tmp_path: Path) -> None:
    for target in (str(tmp_path / "nope.json"), str(tmp_path)):
        result = run("check", target)
        assert result.returncode == 2
        assert "cannot read the file" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [[], ["check"], ["chek", "x"], ["check", "--jsn", "x"]])
def test_bad_arguments_are_one_clear_line(args: list[str]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("nonsense", "cannot read 'nonsense'"),
        ("10.0.0.0/33", "cannot read '10.0.0.0/33'"),
        ("https://bots.example:7000", "http://HOST:PORT"),
        ("http://bots.example:7000/bid", "http://HOST:PORT"),
        ("http://bots.example:99999", "bad port"),
    ],
)
def test_a_bad_bots_allowance_is_one_clear_line(value: str, words: str) -> None:
    result = run("serve", "--port", "1", "--bots", value)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("callbreak serve: --bots: ") and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_compresses_socket_messages_unless_told_not_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from callbreak import cli

    given: list[bool] = []

    def serve(serving: cli.Serving) -> int:
        given.append(serving.deflate)
        return 0

    monkeypatch.setattr(cli, "run_serve", serve)
    assert cli.main(["serve"]) == 0
    assert cli.main(["serve", "--deflate", "off"]) == 0
    assert cli.main(["serve", "--deflate", "on"]) == 0
    assert given == [cli.DEFLATE, False, True]


def test_serve_takes_the_bots_it_may_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from callbreak import cli
    from callbreak.web.limits import Limits

    given: list[Limits] = []
    monkeypatch.setattr(cli, "run_serve", lambda serving: given.append(serving.limits) or 0)
    assert cli.main(["serve", "--bots", "http://Bots.example:7000, 10.0.0.0/8,::1/128"]) == 0
    bots = given[0].bots
    assert str(bots) == "http://bots.example:7000, 10.0.0.0/8, ::1/128"
    assert cli.main(["serve"]) == 0
    assert not given[1].bots  # none unless the operator says so
    assert (given[1].reviews, given[1].review_queue, given[1].review_time) == (1, 1, 0.3)
    assert cli.main(["serve", "--reviews", "3", "--review-time", "0.05"]) == 0
    assert (given[2].reviews, given[2].review_queue, given[2].review_time) == (3, 3, 0.05)
    assert (given[1].searches, given[1].client_searches) == (2, 1)
    assert cli.main(["serve", "--searches", "4", "--client-searches", "2"]) == 0
    assert (given[3].searches, given[3].client_searches) == (4, 2)


@pytest.mark.parametrize(
    ("option", "words"),
    [
        (["--metrics", "10.0.0.0/8,nonsense"], "--metrics takes addresses or networks"),
        (["--drain-seconds", "0"], "--drain-seconds must be above 0"),
        (["--ping-seconds", "-1"], "--ping-seconds above 0"),
        (["--drain-seconds", "soon"], "invalid float value"),
        (["--reviews", "0"], "--reviews must be 1-64"),
        (["--review-time", "0.001"], "--review-time 0.01-600 seconds"),
        (["--searches", "0"], "--searches must be 1-64"),
        (["--searches", "2", "--client-searches", "3"], "--client-searches 1 to --searches"),
    ],
)
def test_serve_refuses_bad_operations_options_in_one_line(
    option: list[str], words: str, tmp_path: Path
) -> None:
    result = run("serve", "--db", str(tmp_path / "db.sqlite"), "--port", "1", *option)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr and words in lines[0], lines


def test_serve_keeps_data_as_long_as_told(monkeypatch: pytest.MonkeyPatch) -> None:
    from callbreak import cli
    from callbreak.web.retention import DAY, Retention

    given: list[Retention] = []
    monkeypatch.setattr(cli, "run_serve", lambda serving: given.append(serving.retention) or 0)
    assert cli.main(["serve"]) == 0
    assert given[0] == Retention()  # the parser's defaults are the retention's own
    assert given[0] == Retention(finished=30 * DAY, lobbies=DAY, unfinished=7 * DAY)
    options = ["--keep-finished", "never", "--keep-lobbies", "12h", "--keep-unfinished", "2w"]
    assert cli.main(["serve", *options]) == 0
    assert given[1] == Retention(finished=None, lobbies=DAY / 2, unfinished=14 * DAY)
    assert given[0].profiles == 364 * DAY and given[0].standings == 90 * DAY
    assert cli.main(["serve", "--keep-profiles", "never", "--keep-standings", "1w"]) == 0
    assert (given[2].profiles, given[2].standings) == (None, 7 * DAY)


def test_serve_reads_the_challenges_secret(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from callbreak import cli

    given: list[bytes | None] = []
    monkeypatch.setattr(
        cli, "run_serve", lambda serving: given.append(serving.challenge_secret) or 0
    )
    (tmp_path / "secret").write_bytes(b"f" * 64 + b"\n")
    assert cli.main(["serve", "--challenge-secret", str(tmp_path / "secret")]) == 0
    assert cli.main(["serve"]) == 0
    assert given == [b"f" * 64, None]  # the line's end is not the secret's


def test_rules_lists_profiles() -> None:
    result = run("rules")
    assert result.returncode == 0
    for name in ("strict", "classic", "online", "pagat", "bhoos"):
        assert name in result.stdout


@pytest.mark.slow
@pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="reads a process's children in /proc"
)
@pytest.mark.parametrize("command", ["arena", "league"])
def test_sigterm_stops_an_arena_or_a_league_as_ctrl_c_does(command: str, tmp_path: Path) -> None:
    """``kill`` (SIGTERM) to the parent alone: the finished sets are reported (a league's kept)
    and the workers stop, with no worker's BrokenPipe traceback (what a parent killed outright
    left behind)."""
    if command == "arena":
        args = ["arena", "beginner", "intermediate", "--sets", "100000", "--workers", "2"]
    else:
        league = tmp_path / "league.toml"
        league.write_text(
            'rules = "strict"\nsets = 100000\n[[entrant]]\nlabel = "b"\nspec = "beginner"\n'
            '[[entrant]]\nlabel = "i"\nspec = "intermediate"\n'
        )
        args = ["league", str(league), "--workers", "2", "--out", str(tmp_path / "out")]
    process = subprocess.Popen(
        [sys.executable, "-m", "callbreak", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(children.read_text().split()) < 2:
        time.sleep(0.2)  # wait for the pool's workers
    time.sleep(3)  # and for some sets to finish
    os.kill(process.pid, signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert out.startswith("interrupted:")
    if command == "league":
        assert (tmp_path / "out" / "results.sqlite").exists()


# --- `callbreak serve` as the public meets it ----------------------------------------------------


def _get(url: str, forwarded: str | None = None) -> int:
    """The status of a GET, with an X-Forwarded-For header when given."""
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10):
            return 200
    except urllib.error.HTTPError as answer:
        return answer.code


@pytest.fixture(scope="module")
def loaded_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """One `callbreak serve` process for the tests of its memory, started once for the module,
    its computer players loaded (their memory is not what those tests measure)."""
    folder = tmp_path_factory.mktemp("serve")
    with callbreak_serve(folder) as (process, base):
        _computers_loaded(process, folder)
        yield process, base


def _computers_loaded(process: subprocess.Popen[bytes], folder: Path) -> None:
    """Wait until the serve process says its computer players are loaded (in the background,
    from its start: memory it takes meanwhile is theirs)."""
    deadline = time.monotonic() + 900
    while "computer players are ready" not in (folder / "serve.log").read_text():
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.5)


def _rss(pid: int) -> int:
    """A process's resident memory in bytes, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


@pytest.mark.slow
def test_x_forwarded_for_counts_only_from_a_configured_proxy(tmp_path: Path) -> None:
    """Rate limits count the peer; X-Forwarded-For names the client only from --proxies."""
    burst = int(DEFAULT.lookup_burst)
    rotating = [f"10.0.{n // 250}.{n % 250 + 1}" for n in range(burst + 3)]
    with callbreak_serve(tmp_path / "direct", "--lookup-rate", "1") as (_, base):
        # A client making up a new address for each request is still one client.
        statuses = [_get(f"{base}/api/rooms/ZZZZZZ", forwarded) for forwarded in rotating]
        assert statuses == [404] * burst + [429] * 3
    with callbreak_serve(tmp_path / "proxied", "--lookup-rate", "1", "--proxies", "127.0.0.1") as (
        _,
        base,
    ):
        # Behind a proxy, each client it names has its own limits...
        statuses = [_get(f"{base}/api/rooms/ZZZZZZ", forwarded) for forwarded in rotating]
        assert statuses == [404] * len(rotating)
        # ...and one client is limited whatever the others do.
        statuses = [_get(f"{base}/api/rooms/ZZZZZZ", "10.9.9.9") for _ in range(burst + 1)]
        assert statuses == [404] * burst + [429]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads memory from /proc")
def test_a_huge_frame_closes_its_socket_and_the_server_does_not_grow(
    loaded_server: tuple[subprocess.Popen[bytes], str],
) -> None:
    """uvicorn's own limit is the app's (16 kB): a 5 MB frame is never held."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    process, base = loaded_server
    request = urllib.request.Request(
        f"{base}/api/matches",
        data=json.dumps({"opponents": ["random"] * 3}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        made = json.load(answer)
    address = f"{base.replace('http', 'ws')}/ws/matches/{made['id']}"
    before = _rss(process.pid)
    for _ in range(5):
        with connect(address, max_size=None, open_timeout=10) as socket:
            socket.send(json.dumps({"type": "hello", "token": made["token"]}))
            assert json.loads(socket.recv(timeout=10))["type"] == "welcome"
            assert json.loads(socket.recv(timeout=10))["type"] == "state"
            with pytest.raises(ConnectionClosed):
                socket.send("x" * 5_000_000)
                while True:  # past any message already on its way; never "too long"
                    message = json.loads(socket.recv(timeout=10))
                    assert message["type"] != "error", message
        assert socket.close_code in (1009, 1006, None), socket.close_code
    grown = _rss(process.pid) - before
    assert grown < 20_000_000, f"the server grew by {grown / 1e6:.1f} MB"
    # The server goes on.
    assert _get(f"{base}/api/profiles") == 200


@pytest.mark.slow
def test_a_client_that_pings_and_never_reads_is_dropped(
    loaded_server: tuple[subprocess.Popen[bytes], str],
) -> None:
    """Pings pass every message limit, and uvicorn writes each pong at once: a client that
    sends 20 MB of pings and reads nothing is dropped, and the server does not keep its pongs."""
    import base64
    import socket as sockets

    from callbreak.web.client import http

    process, base = loaded_server
    status, room = http("POST", f"{base}/api/rooms", {"name": "Asha"})
    assert status == 201
    port = int(base.rsplit(":", 1)[1])
    before = _rss(process.pid)
    peer = sockets.socket()
    peer.setsockopt(sockets.SOL_SOCKET, sockets.SO_RCVBUF, 4096)  # reads nothing anyway
    peer.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    peer.sendall(
        (
            f"GET /ws/rooms/{room['room']} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    assert b" 101 " in peer.recv(4096).split(b"\r\n")[0] + b" "
    payload = os.urandom(125)
    mask = os.urandom(4)
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    ping = bytes([0x89, 0x80 | 125]) + mask + masked
    batch = ping * 8000  # 1 MB of pings a send
    peer.settimeout(10)
    sent, dropped = 0, False
    try:
        while sent < 20_000_000:
            peer.sendall(batch)
            sent += len(batch)
    except (ConnectionResetError, BrokenPipeError, TimeoutError):
        dropped = True
    grown = _rss(process.pid) - before
    peer.close()
    assert dropped, f"{sent / 1e6:.0f} MB of pings were taken with nothing read"
    assert grown < 20_000_000, f"the server grew by {grown / 1e6:.1f} MB"
    assert _get(f"{base}/api/profiles") == 200  # and goes on


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--proxies", "nginx.local"], "--proxies takes addresses or networks"),
        (["--proxies", "127.0.0.1,10.0.0.0/33"], "not '10.0.0.0/33'"),
        (["--sockets", "0"], "must be above 0"),
        (["--lookup-rate", "-1"], "must be above 0"),
        (["--keep-finished", "soon"], "--keep-finished: a duration is a number and a unit"),
        (["--keep-lobbies", "0d"], "such as 30d or 12h, or never; not '0d'"),
        (["--keep-unfinished", "7 days"], "--keep-unfinished"),
        (["--keep-standings", "a while"], "--keep-standings"),
        (["--challenge-secret", "/no/such/file"], "--challenge-secret: [Errno 2]"),
    ],
)
def test_serve_refuses_bad_limits_and_proxies_in_one_line(
    options: list[str], words: str, tmp_path: Path
) -> None:
    result = run("serve", "--db", str(tmp_path / "db.sqlite"), *options)
    assert result.returncode == 2 and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


# --- what the CLI says of the app's own files and its first start -------------------------------


def test_check_says_a_scoresheet_is_not_a_game_record(tmp_path: Path) -> None:
    """The scoresheet's JSON download (and the history's tokens file) is one line saying what
    the file is, exit 2: never "unknown key 'places'"."""
    from callbreak.record import OTHER_FORMATS
    from callbreak.rules import Rules
    from callbreak.web.owners import TOKENS_FORMAT, tokens_file
    from callbreak.web.sheets import EXPORT_FORMAT, Sheet

    assert {EXPORT_FORMAT, TOKENS_FORMAT} <= OTHER_FORMATS.keys()
    deal = {"calls": [3, 4, 2, 3], "tricks": [3, 5, 2, 3]}
    sheet = Sheet("s1", ["Asha", "Bikash", "Chandra", "Dipa"], Rules.parse("strict"), [deal])
    download = write(tmp_path / "callbreak-scoresheet.json", sheet.export_json())
    tokens = write(tmp_path / "callbreak-history.json", tokens_file([], []))
    for path, words in ((download, "is a scoresheet"), (tokens, "is a history file")):
        result = run("check", path)
        assert result.returncode == 2 and result.stdout == "", result
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "not a game record" in lines[0], lines
        assert "unknown key" not in lines[0] and "Traceback" not in result.stderr


def test_serve_on_a_port_in_use_is_one_line_and_claims_nothing(tmp_path: Path) -> None:
    """A second `callbreak serve` on the port of a running one: one line, exit 2, and nothing
    said to run (no "Call Break is at ...", no warm-up) nor made (no database)."""
    with callbreak_serve(tmp_path / "first") as (first, base):
        port = base.rsplit(":", 1)[1]
        second = tmp_path / "second.db"
        result = run("serve", "--port", port, "--db", str(second))
        assert result.returncode == 2, result
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr, lines
        assert lines[0].startswith(f"callbreak serve: port {port} on 127.0.0.1 is in use")
        assert not second.exists()
        # The first server goes on.
        assert first.poll() is None and _get(f"{base}/api/profiles") == 200


def test_only_a_start_that_compiles_says_a_fresh_install_compiles() -> None:
    from callbreak import cli

    assert cli._compile_note(lambda: True) is None  # the stand-in is ready: loaded, warm
    words = cli._compile_note(lambda: False)
    assert words and "a fresh install does it once" in words


def test_a_warm_start_prints_two_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from callbreak import cli, warmup

    monkeypatch.setattr(warmup, "warm_up", lambda: 0.8)
    cli._announced_warm_up(compile_sign=60.0)
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["Loading the computer players...", "The computer players are ready (1 s)"]


def test_only_a_bot_start_that_compiles_says_a_fresh_install_compiles() -> None:
    """Issue 42, item 9: ``callbreak bot`` said "a fresh install compiles it once" at every
    start, warm or not."""
    from callbreak import cli

    assert cli._bot_compile_note(lambda: True) is None  # its first functions loaded: warm
    words = cli._bot_compile_note(lambda: False)
    assert words and "a fresh install does it once" in words


def test_a_warm_bot_start_prints_two_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from callbreak import cli, warmup

    monkeypatch.setattr(warmup, "warm_up", lambda: 0.8)
    cli._announced_bot_warm_up(compile_sign=60.0)
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err.splitlines() == [
        "callbreak bot: loading the search kernel; /hi answers when it is ready...",
        "callbreak bot: ready (1 s)",
    ]


def test_a_warm_up_still_running_at_the_sign_prints_the_note_between(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from callbreak import cli, warmup

    stream = io.StringIO()

    def warm_up() -> float:  # a fresh install's: still compiling when the note is due
        deadline = time.monotonic() + 10
        while "compiling..." not in stream.getvalue():
            assert time.monotonic() < deadline, "the note was never said"
            time.sleep(0.01)
        return 31.0

    monkeypatch.setattr(warmup, "warm_up", warm_up)
    cli._said_warm_up("loading...", lambda: "compiling...", "ready ({seconds:.0f} s)", stream, 0.01)
    assert stream.getvalue().splitlines() == ["loading...", "compiling...", "ready (31 s)"]


def test_readme_and_deploy_agree_with_serve_on_the_first_start() -> None:
    """Both say what `callbreak serve` does on a first start: it compiles in the background at
    once, says so in the two lines it prints, and the learned level stands in meanwhile."""
    import inspect

    from callbreak import cli, warmup

    root = Path(__file__).parent.parent
    readme = " ".join((root / "README.md").read_text().split())
    deploy = " ".join((root / "docs" / "deploy.md").read_text().split())
    printed = inspect.getsource(cli._announced_warm_up)
    assert "Loading the computer players" in printed and "computer players are ready" in printed
    assert warmup.STAND_IN == "learned"
    for text in (readme, deploy):
        assert "about half a minute on a quiet 2-core machine" in text
        assert "*Loading the computer players...*" in text
        assert "*The computer players are ready (N s)*" in text
        assert "the `learned` level" in text and "in about a second" in text
        assert "about a minute once" not in text and "waits while the search" not in text


def test_serve_takes_the_pools_or_none(monkeypatch: pytest.MonkeyPatch) -> None:
    from callbreak import cli
    from callbreak.web.matching import DEFAULT_POOLS, Pool

    given: list[Any] = []
    monkeypatch.setattr(cli, "run_serve", lambda serving: given.append(serving.pools) or 0)
    assert cli.main(["serve"]) == 0
    assert cli.main(["serve", "--pools", "bhoos:30, classic"]) == 0
    assert cli.main(["serve", "--no-pools"]) == 0
    assert given == [DEFAULT_POOLS, (Pool("bhoos", "bhoos", 30), Pool("classic", "classic")), ()]
    assert [(p.name, p.turn_seconds) for p in DEFAULT_POOLS] == [("strict", 20), ("bhoos", 20)]


@pytest.mark.parametrize("value", ["snap", "strict:2", "strict:soon", "strict,strict"])
def test_a_bad_pool_is_one_clear_line(value: str) -> None:
    result = run("serve", "--port", "1", "--pools", value)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("callbreak serve: --pools: ")
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_refuses_a_short_challenge_secret_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("short\n")
    result = run(
        "serve", "--db", str(tmp_path / "db.sqlite"), "--challenge-secret", str(tmp_path / "secret")
    )
    assert result.returncode == 2 and "holds 5 bytes; the secret needs at least 32" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
