"""Fixtures shared by several test modules (one local Ray for the whole run, a redis-server per
module, asyncio for the async tests), and the markers of the slow groups: ``e2e`` (the browser
tests), ``redis`` (a real redis-server), ``ray`` (a local Ray) and ``slow`` (the rest of what
takes long). The fast loop for development leaves them out (README, *Run the tests*); CI runs
everything."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Nothing of a test run is reported anywhere.
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"


@pytest.fixture(scope="session")
def local_ray() -> Iterator[str]:
    """A local Ray with two CPUs, started once (about ten seconds) for every test that asks;
    yields its address, which other processes can join. The arena and leagues of this process
    use it when given ``ray="local"``."""
    import ray

    from callbreak.workers import open_runner

    runner = open_runner(workers=2, ray="local")
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        runner.close()


@pytest.fixture
def anyio_backend() -> str:
    """The async tests run on asyncio, as the server does (uvicorn, the redis client)."""
    return "asyncio"


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A real redis-server for one test module (``tests.helpers.redis_server``); a test that
    asks for it is marked ``redis``."""
    from tests.helpers import redis_server

    with redis_server() as url:
        yield url


E2E = Path(__file__).parent / "e2e"
REDIS_MODULES = {"test_store_outages", "test_rooms_processes"}
"""Modules whose every test runs real redis-servers."""
SLOW = {
    "test_arena": {
        "test_a_bot_that_goes_away_ends_the_arena_with_a_report",
        "test_a_clocked_arena_with_one_worker_plays_in_a_process_of_its_own",
        "test_a_player_against_itself_centres_on_zero",
        "test_always_calling_the_minimum_loses_clearly",
        "test_cli_arena_names_the_sets_of_a_later_run",
        "test_cli_arena_writes_the_json_report",
        "test_same_seed_same_result_with_one_and_two_workers",
    },
    "test_bots": {
        "test_cli_bot_and_arena_against_it",
        "test_our_players_served_and_seated_back_play_whole_matches",
    },
    "test_cli": {
        "test_a_client_that_pings_and_never_reads_is_dropped",
        "test_a_huge_frame_closes_its_socket_and_the_server_does_not_grow",
        "test_sigterm_stops_an_arena_or_a_league_as_ctrl_c_does",
        "test_x_forwarded_for_counts_only_from_a_configured_proxy",
    },
    "test_kernel": {
        "test_a_thread_runs_on_while_the_expert_searches",
        "test_searches_in_several_threads_under_the_workqueue_layer",
    },
    "test_league": {
        "test_ratings_order_clearly_ranked_players",
        "test_reports_json_markdown_and_svg",
        "test_resume_plays_only_the_missing_sets",
    },
    "test_players": {
        "test_expert_is_deterministic_for_a_seed",
        "test_expert_plays_a_whole_match_legally",
    },
    "test_reviews": {
        "test_a_room_is_reviewed_for_the_seat_its_token_holds_by_the_real_pool",
    },
    "test_rooms": {
        "test_a_person_who_goes_away_is_covered_and_gets_the_seat_back",
        "test_a_searching_cover_has_the_stand_in_while_its_search_compiles",
        "test_the_clock_runs_out_and_the_cover_plays",
    },
    "test_search": {
        "test_a_search_player_sees_nothing_of_other_hands",
        "test_expert_options_play_legally_and_repeat",
        "test_ismcts_plays_a_whole_match_legally",
        "test_model_playouts_size_the_searches_they_slow",
        "test_spending_by_the_deal_never_exceeds_the_deals_budget",
        "test_the_oracle_can_play_the_others_by_the_model_of_play",
        "test_the_seer_is_the_expert_with_a_share_of_its_worlds_the_true_deal",
    },
    "test_searches": {"test_a_clients_six_matches_of_experts_do_not_slow_another_room"},
    "test_seating": {"test_a_limit_reaches_the_player_through_the_interface"},
    "test_warmup": {
        "test_each_search_player_names_the_kernel_functions_its_decisions_call",
        "test_the_warm_up_readies_the_stand_in_before_the_search",
        "test_warm_up_compiles_every_kernel_function_the_players_call",
    },
}
"""The tests of 1.5 s or more (``pytest --durations``, 2026-12-03) that play matches with the
searching players or start servers and processes: the arena's run with one and two workers
alone took 225 s."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it starts: the browser tests ``e2e``, a test that asks for a
    local Ray ``ray``, one that runs a real redis-server ``redis``, and the ``SLOW`` ones."""
    for item in items:
        path = Path(str(item.path))
        fixtures = getattr(item, "fixturenames", ())
        params = getattr(getattr(item, "callspec", None), "params", {})
        if E2E in path.parents:
            item.add_marker(pytest.mark.e2e)
        if "local_ray" in fixtures:
            item.add_marker(pytest.mark.ray)
        if (
            path.stem in REDIS_MODULES
            or "redis_url" in fixtures
            or params.get("backend") == "redis"
        ):
            item.add_marker(pytest.mark.redis)
        # SLOW names the modules directly under tests/ (tests/e2e/test_rooms.py is not
        # tests/test_rooms.py), and a name must be a test its module defines, whatever a run
        # selects (-k, node ids), so that a renamed test cannot silently leave the slow group.
        slow = SLOW.get(path.stem, set()) if path.parent == E2E.parent else set()
        renamed = {name for name in slow if not hasattr(getattr(item, "module", None), name)}
        if renamed:
            raise pytest.UsageError(f"tests/conftest.py SLOW names no test {sorted(renamed)}")
        if getattr(item, "originalname", item.name) in slow:
            item.add_marker(pytest.mark.slow)
