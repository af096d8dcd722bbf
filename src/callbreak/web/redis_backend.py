"""Tables in Redis, shared by every server process that uses the same Redis.

Each match or room ``ID`` is a few keys with the hash tag ``{ID}`` (so that a Redis Cluster
keeps them together): ``cb:{ID}:data`` (seats, rules, settings: JSON), ``cb:{ID}:state`` (a hash
of rev, status, deadline, updated), ``cb:{ID}:actions`` (a list of action codes),
``cb:{ID}:faults`` (a hash of action index to the faults noted on it), ``cb:{ID}:presence``
(which process holds a connection for which seat, until when) and ``cb:{ID}:lease`` (the process
that runs the table's computers and clock). ``cb:index:KIND`` lists the tables of a kind. A
scoresheet ``ID`` is one hash, ``cb:sheet:{ID}`` (created, updated, data, the hash of its token,
rev), so that every process serves every sheet; a sheet that a process kept in its own SQLite
file before sheets moved to Redis is read from there once and kept in Redis from then on.

Each of a table's own keys lives for its retention (:mod:`~callbreak.web.retention`) from the
last write to it, set by that write, and at least that long from the last time a process said
someone is connected: Redis forgets what nobody touches any more, with no process running.
The sweep (:meth:`RedisBackend.expire`) keeps the index to the tables that exist.

Public play (docs/public.md): a profile ``ID`` is the hash ``cb:profile:{ID}`` with
``cb:profile-token:{HASH}`` naming it by its token's hash; the pools' waiting lists share the hash
tag ``{pools}`` (``cb:{pools}:places``, a hash of each person's one place, and
``cb:{pools}:waiting:POOL``, a sorted set of who waits there since when; and
``cb:{pools}:offers:POOL``, the pool's tables with a computer's seat to take), so that one script
moves a person between them atomically; a pool's ratings share ``{rating:POOL}``
(``:ratings``, a hash of each person's rating; ``:rated``, the set of the matches rated;
``:board``, the ratings that are not provisional by their ordinal; ``:history:PROFILE``, a
list of a person's ratings after each rated match), and ``cb:rating-pools`` names the pools
rated. ``cb:plays:{PROFILE}`` is a hash of what each of a person's plays was, and
``cb:profiles:seen`` a sorted set of the profiles by their last use, which their retention
counts from. The daily challenge's day ``DAY`` shares the hash tag ``{challenge:DAY}``
(``:attempts``, a hash of each profile's attempt; ``:addresses``, the ranked attempts of each
address's keyed hash), kept for the standings' retention after the day; ``cb:secret:NAME``
holds a secret the server made itself.

An action is appended by a Lua script that checks the version first, so exactly one of two
processes racing for a turn wins, whatever process or machine they run on. Events go over
pub/sub (``cb:{ID}:events``); pub/sub may drop a message, so a process that hears anything
reads the table again rather than trusting the message.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import json
import math
import time
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from typing import Any

import redis.asyncio as redis
from redis.asyncio.connection import AbstractConnection

from callbreak.ratings import NEW, Book, Outcome, Person, PoolRating, settle
from callbreak.web.backend import EXPIRE_BATCH, Event, Held, Look, Sheet, forget
from callbreak.web.http import LOG
from callbreak.web.model import FINISHED, STATUSES, Step, TableData
from callbreak.web.retention import DAY as DAY_SECONDS
from callbreak.web.retention import DEFAULT_RETENTION, Retention
from callbreak.web.store import Store

__all__ = ["RedisBackend"]

PRESENCE_SECONDS = 15.0
"""A connection not confirmed for this long (its process died) no longer counts."""
CONNECTIONS = 64
"""Connections to Redis a process keeps at most; a command waits for a free one (up to
CONNECTION_WAIT seconds) rather than failing, which under load stopped tables' drivers."""
CONNECTION_WAIT = 20.0
COMMAND_SECONDS = 2.0
"""A command Redis has not answered in this long fails (and is tried again by the caller,
:func:`~callbreak.web.backend.retried`): a paused or unreachable Redis must not hold a person's
click, or a table's driver, for ever."""
HEALTH_SECONDS = 1.0
"""A pooled connection idle for this long is asked a PING before its next command, and made
again when the PING fails (:class:`_Checked`)."""

# A table's keys live for its retention from its last change (ARGV[#ARGV] seconds; 0: for
# ever): set by every write, so that Redis itself forgets what nobody touches any more.
_LIFETIME = """
local function lifetime(seconds)
  for i = 1, #KEYS do
    if seconds > 0 then
      redis.call('EXPIRE', KEYS[i], seconds)
    else
      redis.call('PERSIST', KEYS[i])
    end
  end
end
"""

# Lobby change on a revision and a version of the match: fails (0) when the stored revision
# differs, or an action was appended since (the change carries the status and the clock).
_SAVE = (
    _LIFETIME
    + """
if tonumber(redis.call('HGET', KEYS[1], 'rev')) ~= tonumber(ARGV[1]) then return 0 end
if redis.call('LLEN', KEYS[3]) ~= tonumber(ARGV[6]) then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'rev', tonumber(ARGV[1]) + 1, 'status', ARGV[3],
           'deadline', ARGV[4], 'updated', ARGV[5])
lifetime(tonumber(ARGV[7]))
return 1
"""
)

# An action on a version and a lobby revision: fails (0) when the match has moved on, or a
# lobby change (a seat given to someone else) came between.
_APPEND = (
    _LIFETIME
    + """
if redis.call('LLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
if tonumber(redis.call('HGET', KEYS[3], 'rev')) ~= tonumber(ARGV[7]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
redis.call('HSET', KEYS[3], 'status', ARGV[4], 'deadline', ARGV[5], 'updated', ARGV[6])
lifetime(tonumber(ARGV[8]))
return 1
"""
)

# Write back a copy of a table the store lost (Redis restarted without persistence, or with
# its last second of writes gone): when the table is missing, or when the stored actions are
# the copy's first ones on the copy's lobby revision. Fails (0) otherwise: the store then holds
# a newer or another table, which the copy takes instead.
_RESTORE = """
local copy = cjson.decode(ARGV[1])
local actions = copy.actions
local stored = redis.call('LLEN', KEYS[3])
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('EXISTS', KEYS[2]) == 1 then
  if tonumber(redis.call('HGET', KEYS[2], 'rev')) ~= tonumber(copy.rev) then return 0 end
  if stored >= #actions then return 0 end
  local have = redis.call('LRANGE', KEYS[3], 0, -1)
  for i = 1, stored do
    if have[i] ~= actions[i] then return 0 end
  end
else
  redis.call('DEL', KEYS[3], KEYS[4])
  stored = 0
  redis.call('SET', KEYS[1], copy.data)
  redis.call('ZADD', KEYS[5], copy.created, copy.id)
end
for i = stored + 1, #actions do redis.call('RPUSH', KEYS[3], actions[i]) end
for index, text in pairs(copy.faults) do redis.call('HSET', KEYS[4], index, text) end
redis.call('HSET', KEYS[2], 'rev', copy.rev, 'status', copy.status, 'deadline', copy.deadline,
           'updated', copy.updated)
for k = 1, 4 do
  if copy.lifetime > 0 then redis.call('EXPIRE', KEYS[k], copy.lifetime) end
end
return 1
"""

# Someone is here: the table's keys (KEYS[2..5], its state first) live at least their retention
# from now (GT: never shortened, and keys kept for ever stay so). ARGV[3..]: status, seconds, ...
_EXTEND = """
local function extend()
  local status = redis.call('HGET', KEYS[2], 'status')
  for i = 3, #ARGV, 2 do
    if ARGV[i] == status and tonumber(ARGV[i + 1]) > 0 then
      for k = 2, #KEYS do redis.call('EXPIRE', KEYS[k], ARGV[i + 1], 'GT') end
    end
  end
end
"""

# A connection for a seat (ARGV[1]: the field, ARGV[2]: until when); the hash goes with the last
# process that refreshed it, so that a process killed leaves no field behind for ever.
_PRESENT = (
    _EXTEND
    + f"""
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], {math.ceil(2 * PRESENCE_SECONDS)})
extend()
return 1
"""
)

# A process's look at one table every few seconds (``RedisBackend.look``). KEYS: presence,
# state, data, actions, faults, lease. ARGV: the process, now, until when its connections count,
# the lease's milliseconds, the number N of its fields (seat|process) that follow, then each
# status and the seconds its tables live after a write. Its fields are set (and the table's
# keys live at least their retention from now, as _PRESENT makes them), fields past their time
# removed, the lease renewed when the process holds it. Returns the revision ('' for no table),
# the actions stored, the lease's holder ('' for none), and the fields in time.
_LOOK = f"""
local n = tonumber(ARGV[5])
for i = 1, n do redis.call('HSET', KEYS[1], ARGV[5 + i], ARGV[3]) end
local state = redis.call('HMGET', KEYS[2], 'rev', 'status')
if n > 0 then
  redis.call('EXPIRE', KEYS[1], {math.ceil(2 * PRESENCE_SECONDS)})
  for i = 6 + n, #ARGV, 2 do
    if ARGV[i] == state[2] and tonumber(ARGV[i + 1]) > 0 then
      for k = 2, 5 do redis.call('EXPIRE', KEYS[k], ARGV[i + 1], 'GT') end
    end
  end
end
local present = {{}}
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if tonumber(fields[i + 1]) < tonumber(ARGV[2]) then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    table.insert(present, fields[i])
  end
end
local holder = redis.call('GET', KEYS[6])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[6], ARGV[4]) end
return {{state[1] or '', redis.call('LLEN', KEYS[4]), holder or '', present}}
"""

# A sweep's look at one table: delete it when its status has a cutoff and its last change came
# before it, unless a connection (presence) or a driver (lease) is on it now; 1 when deleted,
# 2 when its keys had already expired, 0 otherwise. Keys stored before they had lifetimes get
# theirs. ARGV: status, cutoff, seconds, ... ('' for a status kept for ever).
_EXPIRE = """
local state = redis.call('HMGET', KEYS[1], 'status', 'updated')
if not state[1] then
  if redis.call('EXISTS', KEYS[2]) == 0 then return 2 end
  return 0
end
if redis.call('EXISTS', KEYS[5]) == 1 or redis.call('EXISTS', KEYS[6]) == 1 then return 0 end
for i = 1, #ARGV, 3 do
  if ARGV[i] == state[1] and ARGV[i + 1] ~= '' then
    if tonumber(state[2]) < tonumber(ARGV[i + 1]) then
      redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
      return 1
    end
    if redis.call('TTL', KEYS[1]) == -1 then
      local at = math.ceil(tonumber(state[2]) + tonumber(ARGV[i + 2]))
      for k = 1, 4 do redis.call('EXPIREAT', KEYS[k], at) end
    end
  end
end
return 0
"""

# Take the lease when free, or renew it when ours; a driver runs only where someone is
# connected (a match against the computer has no presence), so the table lives on meanwhile.
_LEASE = (
    _EXTEND
    + """
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  extend()
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  extend()
  return 1
end
return 0
"""
)

# A sheet's change on the revision it was read at: fails (0) when it changed meanwhile or is gone.
_SHEET = """
if tonumber(redis.call('HGET', KEYS[1], 'rev')) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[2], 'updated', ARGV[3], 'rev', tonumber(ARGV[1]) + 1)
if tonumber(ARGV[4]) > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
else
  redis.call('PERSIST', KEYS[1])
end
return 1
"""

# A sheet stored from this process's SQLite file, unless another process did so first.
_ADOPT_SHEET = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'created', ARGV[1], 'updated', ARGV[2], 'data', ARGV[3],
           'token', ARGV[4], 'rev', 0)
if tonumber(ARGV[5]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[5]) end
return 1
"""

# Give up the lease only when ours: another process may have taken it since it ran out.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


# A person's wait in a pool (KEYS[1]: the places; ARGV: profile, pool, since, stale, the waiting
# lists' prefix, the new place as JSON): the place kept as it is when it is a wait in this pool
# or a seat at a table that goes on, a wait elsewhere moved here. The waiting lists are named
# from the prefix inside the script: they share the places' hash tag, hence its slot.
_WAIT = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held then
  local place = cjson.decode(held)
  if place.state == 'waiting' then
    if place.pool == ARGV[2] then return held end
    redis.call('ZREM', ARGV[5] .. place.pool, ARGV[1])
  elseif not (place.over or (place.state == 'seating' and tonumber(place.at) < tonumber(ARGV[4])))
  then
    return held
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[6])
redis.call('ZADD', ARGV[5] .. ARGV[2], ARGV[3], ARGV[1])
return ARGV[6]
"""

# Off the waiting list (ARGV: profile, prefix); the place left (a seat), or nil.
_UNWAIT = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return false end
local place = cjson.decode(held)
if place.state ~= 'waiting' then return held end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', ARGV[2] .. place.pool, ARGV[1])
return false
"""

# People taken off a pool's waiting list for one table, all or none (KEYS: places, the pool's
# waiting list; ARGV: pool, at, profiles...): 0 unless every one waits there now.
_TAKE = """
local since = {}
for i = 3, #ARGV do
  local score = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if not score then return 0 end
  since[i] = score
end
for i = 3, #ARGV do
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('HSET', KEYS[1], ARGV[i], '{"state": "seating", "pool": ' .. cjson.encode(ARGV[1])
             .. ', "since": ' .. since[i] .. ', "at": ' .. ARGV[2] .. '}')
end
return 1
"""

# A profile's name and avatar changed, if it exists (ARGV: name, avatar, updated).
_PROFILE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'avatar', ARGV[2], 'updated', ARGV[3])
return 1
"""

# An attempt of the daily challenge kept unless the profile has one that day (KEYS: the day's
# attempts, its addresses; ARGV: profile, the attempt as JSON, its address, the ranked attempts
# an address may have, the attempt as JSON unranked for its address, the keys' lifetime):
# {1, the attempt kept} or {0, the one the profile had}. Both forms are made by the caller, so
# that the script never writes JSON of its own (cjson would round the times).
_BEGIN = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held then return {0, held} end
local kept = ARGV[2]
if cjson.decode(ARGV[2]).ranked then
  if tonumber(redis.call('HGET', KEYS[2], ARGV[3]) or '0') >= tonumber(ARGV[4]) then
    kept = ARGV[5]
  else
    redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
  end
end
redis.call('HSET', KEYS[1], ARGV[1], kept)
if tonumber(ARGV[6]) > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[6])
  redis.call('EXPIRE', KEYS[2], ARGV[6])
end
return {1, kept}
"""

PLACES = "cb:{pools}:places"
WAITING = "cb:{pools}:waiting:"
OFFERS = "cb:{pools}:offers:"
SEEN = "cb:profiles:seen"
RATED_POOLS = "cb:rating-pools"
HISTORY_MOST = 1_000
"""Ratings a person's history keeps per pool (the chart's last thousand matches)."""


def _profile_of(fields: Mapping[Any, Any]) -> dict[str, Any] | None:
    if not fields:
        return None
    return {
        "id": fields["id"],
        "token": fields["token"],
        "name": fields["name"],
        "avatar": fields["avatar"],
        "created": float(fields["created"]),
        "updated": float(fields["updated"]),
    }


def _rating_key(pool: str, part: str) -> str:
    return f"cb:{{rating:{pool}}}:{part}"


def _rating_of(text: str | bytes | None) -> PoolRating | None:
    if text is None:
        return None
    mu, sigma, matches, left = json.loads(text)
    return PoolRating(float(mu), float(sigma), int(matches), int(left))


def _day_key(day: str, part: str) -> str:
    return f"cb:{{challenge:{day}}}:{part}"


def _key(table_id: str, part: str) -> str:
    return f"cb:{{{table_id}}}:{part}"


def _sheet_key(sheet_id: str) -> str:
    return f"cb:sheet:{{{sheet_id}}}"


def _sheet_of(sheet_id: str, fields: Mapping[Any, Any]) -> Sheet | None:
    """A sheet as the backends give it, from its hash (None when there is none)."""
    if not fields:
        return None
    return {
        "id": sheet_id,
        "created": float(fields["created"]),
        "updated": float(fields["updated"]),
        "data": json.loads(fields["data"]),
        "token": fields.get("token") or None,
        "rev": int(fields["rev"]),
    }


def _stored(table_id: str) -> list[str]:
    """The keys that hold the table itself (not who is connected, nor the lease)."""
    return [_key(table_id, part) for part in ("state", "data", "actions", "faults")]


class _Checked(AbstractConnection):
    """A connection of the pool that is found dead before a command is sent on it, not by the
    command failing.

    A Redis that restarts where its goodbye does not reach this process (its machine or
    container restarted, a failover, a network that dropped the connections) leaves every
    pooled connection dead with nothing to tell: the next command on each failed, so that a
    drain after a restart could not give up its leases. redis-py's ``health_check_interval``
    PINGs a connection idle that long before its next command, but gives up at the first
    failed PING unless its ``retry`` allows more tries, and that same ``retry`` would then try
    every command again too: a lobby change stored whose answer was lost would be made twice
    (``web.sync`` tries again only what the store checks against a version). So here the PING
    alone is tried again, on a new connection, before anything of the command is sent."""

    async def check_health(self) -> None:
        """PING when idle for ``health_check_interval``; reconnect once when the connection
        turns out dead (a PING not answered in time is a Redis paused or slow, which a new
        connection would not answer sooner: it fails the command as it is)."""
        if not self.health_check_interval:
            return
        if asyncio.get_running_loop().time() <= self.next_health_check:
            return
        try:
            await self._ping()
        except (redis.ConnectionError, OSError):
            await self.disconnect(nowait=True)
            await self._ping()  # on a new connection; its failure is the command's

    async def _ping(self) -> None:
        await self.send_command("PING", check_health=False)
        if str(await self.read_response()).upper() not in ("PONG", "TRUE"):
            raise redis.ConnectionError("Redis did not answer PING")


def _checked(kind: type[Any]) -> type[Any]:
    """The pool's connection class (plain, TLS or a Unix socket, as its URL says) with
    :class:`_Checked`'s check."""
    if issubclass(kind, _Checked):
        return kind
    return type(f"Checked{kind.__name__}", (_Checked, kind), {})


class RedisBackend:
    """Tables, events, presence and leases in one Redis (``redis://HOST:PORT/N``)."""

    shared = True
    failures: tuple[type[Exception], ...] = (redis.RedisError, OSError)

    def __init__(
        self, url: str, retention: Retention = DEFAULT_RETENTION, sheets_before: Store | None = None
    ) -> None:
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=CONNECTIONS,
            timeout=CONNECTION_WAIT,
            decode_responses=True,
            socket_timeout=COMMAND_SECONDS,
            socket_connect_timeout=COMMAND_SECONDS,
            health_check_interval=HEALTH_SECONDS,
        )
        pool.connection_class = _checked(pool.connection_class)
        self.client = redis.Redis.from_pool(pool)  # owns the pool: closed with the client
        self._save = self.client.register_script(_SAVE)
        self._append = self.client.register_script(_APPEND)
        self._lease = self.client.register_script(_LEASE)
        self._restore = self.client.register_script(_RESTORE)
        self._release = self.client.register_script(_RELEASE)
        self._present = self.client.register_script(_PRESENT)
        self._look = self.client.register_script(_LOOK)
        self._expire = self.client.register_script(_EXPIRE)
        self._sheet = self.client.register_script(_SHEET)
        self._adopt_sheet = self.client.register_script(_ADOPT_SHEET)
        self._wait = self.client.register_script(_WAIT)
        self._unwait = self.client.register_script(_UNWAIT)
        self._take = self.client.register_script(_TAKE)
        self._profile = self.client.register_script(_PROFILE)
        self._begin = self.client.register_script(_BEGIN)
        self.retention = retention
        self.sheets_before = sheets_before
        """This process's SQLite file, where it kept its own scoresheets before they moved to
        Redis: read once for a sheet Redis does not have."""
        self._listeners: dict[str, set[asyncio.Queue[Event]]] = {}
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()

    async def ping(self) -> None:
        """Raise unless Redis answers (a clear error at start, not at the first request)."""
        await self.client.ping()

    # --- tables ----------------------------------------------------------------------------

    async def create(self, data: TableData) -> None:
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.set(_key(data.id, "data"), json.dumps(data.to_json()))
            pipe.hset(
                _key(data.id, "state"),
                mapping={
                    "rev": data.rev,
                    "status": data.status,
                    "deadline": "" if data.deadline is None else repr(data.deadline),
                    "updated": repr(data.updated),
                },
            )
            if data.actions:
                pipe.rpush(_key(data.id, "actions"), *data.actions)
            seconds = self._lifetime(data.status)
            if seconds:
                for key in _stored(data.id):
                    pipe.expire(key, seconds)
            pipe.zadd(f"cb:index:{data.kind}", {data.id: data.created})
            await pipe.execute()

    def _lifetime(self, status: str) -> int:
        """Seconds a table of ``status`` lives after a write (0: for ever)."""
        seconds = self.retention.keep(status)
        return 0 if seconds is None else math.ceil(seconds)

    async def _read_table(self, table_id: str) -> list[Any]:
        """A table's four parts, read in one transaction."""
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.get(_key(table_id, "data"))
            pipe.hgetall(_key(table_id, "state"))
            pipe.lrange(_key(table_id, "actions"), 0, -1)
            pipe.hgetall(_key(table_id, "faults"))
            parts: list[Any] = await pipe.execute()
            return parts

    async def load(self, table_id: str, known: TableData | None = None) -> TableData | None:
        if known is not None:
            # Every process reads every room's table several times a second under load: read
            # only the actions after the known ones while no lobby change (rev) came between.
            # Actions are only ever appended, so the known ones are the stored list's start.
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.hgetall(_key(table_id, "state"))
                pipe.llen(_key(table_id, "actions"))
                pipe.lrange(_key(table_id, "actions"), len(known.actions), -1)
                pipe.hgetall(_key(table_id, "faults"))
                state, length, added, faults = await pipe.execute()
            # A list shorter than the known actions is a store that lost some (it never
            # shortens a list itself): read it whole, for the caller to see it behind.
            if state and int(state["rev"]) == known.rev and length >= len(known.actions):
                return dataclasses.replace(
                    known,
                    actions=known.actions + added,
                    faults={int(index): json.loads(text) for index, text in faults.items()},
                    status=state["status"],
                    deadline=float(state["deadline"]) if state.get("deadline") else None,
                    updated=float(state["updated"]),
                )
        try:
            raw, state, actions, faults = await self._read_table(table_id)
        except redis.ConnectionError:
            # A connection used less than HEALTH_SECONDS before a restart that the network hid
            # is not PINGed first and fails here; the failed one is dropped, and a read is safe
            # to make again (a write is not: see _Checked), so once more on a new connection.
            raw, state, actions, faults = await self._read_table(table_id)
        if raw is None or not state:
            return None  # never stored, or lost (a part of a table is no table)
        data = json.loads(raw)
        data.update(
            rev=int(state["rev"]),
            status=state["status"],
            deadline=float(state["deadline"]) if state.get("deadline") else None,
            updated=float(state["updated"]),
        )
        notes = {int(index): json.loads(text) for index, text in faults.items()}
        return TableData.from_json(data, actions, notes)

    async def save(self, data: TableData) -> bool:
        now = time.time()
        saved = await self._save(
            keys=_stored(data.id),  # state and data first, as the script reads them
            args=[
                data.rev,
                json.dumps(data.to_json()),
                data.status,
                "" if data.deadline is None else repr(data.deadline),
                repr(now),
                data.version,
                self._lifetime(data.status),
            ],
        )
        if saved:
            data.rev += 1
            data.updated = now
        return bool(saved)

    async def append(self, table_id: str, rev: int, step: Step) -> bool:
        stored = await self._append(
            keys=[
                _key(table_id, "actions"),
                _key(table_id, "faults"),
                _key(table_id, "state"),
                _key(table_id, "data"),
            ],
            args=[
                step.version,
                step.code,
                json.dumps(step.faults) if step.faults else "",
                step.status,
                "" if step.deadline is None else repr(step.deadline),
                repr(time.time()),
                rev,
                self._lifetime(step.status),
            ],
        )
        return bool(stored)

    async def tables(self, kind: str | None = None) -> list[TableData]:
        kinds = [kind] if kind is not None else ["match", "room"]
        found: list[TableData] = []
        for name in kinds:
            for table_id in await self.client.zrevrange(f"cb:index:{name}", 0, -1):
                data = await self.load(str(table_id))
                if data is not None:
                    found.append(data)
                else:  # its keys expired: the index forgets it too
                    await self.client.zrem(f"cb:index:{name}", str(table_id))
        found.sort(key=lambda data: -data.updated)
        return found

    # --- events ----------------------------------------------------------------------------

    async def publish(self, table_id: str, event: Event) -> None:
        await self.client.publish(_key(table_id, "events"), json.dumps(event))

    @contextlib.asynccontextmanager
    async def events(self, table_id: str) -> AsyncIterator[asyncio.Queue[Event]]:
        # One subscription per process, to every table's channel by pattern, read by one task:
        # a pub/sub connection must not be used by several tasks at once, and subscribing per
        # table would have to. Each table's listeners get their events through a queue.
        await self._start_reader()
        queue: asyncio.Queue[Event] = asyncio.Queue()
        self._listeners.setdefault(table_id, set()).add(queue)
        try:
            yield queue
        finally:
            forget(self._listeners, table_id, queue)

    async def _start_reader(self) -> None:
        # Under a lock, and the reader started only once the subscription is made: two tables
        # opening at once used to start a reader on a pub/sub whose subscription (and
        # connection) the other was still making ("pubsub connection not set"), a task that
        # died with nobody to hear it.
        async with self._starting:
            if self._reader is not None and not self._reader.done():
                return
            if self._pubsub is None:
                pubsub: Any = self.client.pubsub(ignore_subscribe_messages=True)
                try:
                    await pubsub.psubscribe("cb:{*}:events")
                except BaseException:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                    raise  # Redis out of reach: the next table's listener tries again
                self._pubsub = pubsub
            self._reader = asyncio.get_running_loop().create_task(self._read())
            self._reader.add_done_callback(_reader_ended)

    async def _read(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except (redis.RedisError, OSError):
                # Redis restarting or paused: the tables catch up when it is back (each reads
                # its table again every few seconds), so no message missed meanwhile matters.
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "pmessage":
                continue
            channel = str(message["channel"])
            table_id = channel[channel.index("{") + 1 : channel.index("}")]
            listeners = self._listeners.get(table_id)
            if not listeners:
                continue  # a table this process does not serve now
            try:
                event = json.loads(message["data"])
            except ValueError:
                continue
            for queue in list(listeners):
                queue.put_nowait(event)

    # --- presence and leases ---------------------------------------------------------------

    async def set_presence(self, table_id: str, seat: int, owner: str, count: int) -> None:
        field = f"{seat}|{owner}"
        if count:
            until = repr(time.time() + PRESENCE_SECONDS)
            await self._present(
                keys=[_key(table_id, "presence"), *_stored(table_id)],
                args=[field, until, *self._lifetimes()],
            )
        else:
            await self.client.hdel(_key(table_id, "presence"), field)

    async def presence(self, table_id: str) -> set[int]:
        now = time.time()
        seats = set()
        stale = []
        for field, until in (await self.client.hgetall(_key(table_id, "presence"))).items():
            if float(until) < now:
                stale.append(field)
            else:
                seats.add(int(str(field).split("|", 1)[0]))
        if stale:
            await self.client.hdel(_key(table_id, "presence"), *stale)
        return seats

    async def lease(self, table_id: str, owner: str, seconds: float) -> bool:
        held = await self._lease(
            keys=[_key(table_id, "lease"), *_stored(table_id)],
            args=[owner, int(seconds * 1000), *self._lifetimes()],
        )
        return bool(held)

    async def look(self, held: Held, owner: str, seconds: float) -> list[Look | None]:
        # One pipeline for every table (a script each, its keys in one slot): a process used
        # to look at each table it serves in several round trips of its own every few seconds,
        # 500 looks a second between two processes at 1,000 rooms.
        if not held:
            return []
        now = time.time()
        until = repr(now + PRESENCE_SECONDS)
        lifetimes = self._lifetimes()
        async with self.client.pipeline(transaction=False) as pipe:
            for table_id, seats in held:
                fields = [f"{seat}|{owner}" for seat, count in seats.items() if count]
                head: list[str | int] = [owner, repr(now), until, int(seconds * 1000), len(fields)]
                await self._look(
                    keys=[
                        _key(table_id, "presence"),
                        *_stored(table_id),
                        _key(table_id, "lease"),
                    ],
                    args=[*head, *fields, *lifetimes],
                    client=pipe,
                )
            answers = await pipe.execute()
        found: list[Look | None] = []
        for rev, version, holder, fields in answers:
            present = frozenset(int(str(field).split("|", 1)[0]) for field in fields)
            found.append(
                Look(int(rev), int(version), present, str(holder) or None) if rev != "" else None
            )
        return found

    async def restore(self, data: TableData) -> bool:
        lifetime = self._lifetime(data.status)
        if lifetime and data.updated + lifetime < time.time():
            return False  # gone because it was past its retention, not lost: kept gone
        copy = {
            "id": data.id,
            "data": json.dumps(data.to_json()),
            "rev": data.rev,
            "status": data.status,
            "deadline": "" if data.deadline is None else repr(data.deadline),
            "updated": repr(data.updated),
            "created": data.created,
            "actions": data.actions,
            # cjson makes an empty JSON object an empty Lua table, as it makes an empty list.
            "faults": {str(index): json.dumps(notes) for index, notes in data.faults.items()},
            "lifetime": lifetime,  # as every write sets it (0: for ever)
        }
        keys = [_key(data.id, part) for part in ("data", "state", "actions", "faults")]
        restored = await self._restore(
            keys=[*keys, f"cb:index:{data.kind}"], args=[json.dumps(copy)]
        )
        return bool(restored)

    async def release(self, table_id: str, owner: str) -> None:
        await self._release(keys=[_key(table_id, "lease")], args=[owner])

    def _lifetimes(self) -> list[str | int]:
        """Each status and the seconds its tables live after a write (0: for ever)."""
        return [item for status in STATUSES for item in (status, self._lifetime(status))]

    async def expire(self, cutoffs: dict[str, float], keep: Collection[str] = ()) -> list[str]:
        # Every table's keys expire on their own (their lifetime is set with every write): the
        # sweep keeps the index to the tables that exist, and removes the tables stored before
        # lifetimes were (or under a longer setting). A table is checked and deleted by one
        # script, so that an action stored meanwhile by another process keeps it.
        args: list[str | float] = []
        for status in STATUSES:
            args += [status, cutoffs.get(status, ""), self._lifetime(status)]
        gone: list[str] = []
        for kind in ("match", "room"):
            index = f"cb:index:{kind}"
            batch: list[str] = []
            async for table_id, _score in self.client.zscan_iter(index, count=EXPIRE_BATCH):
                if str(table_id) not in keep:
                    batch.append(str(table_id))
                if len(batch) >= EXPIRE_BATCH:
                    gone += await self._expire_batch(index, batch, args)
                    batch = []
            gone += await self._expire_batch(index, batch, args)
        return gone

    async def _expire_batch(
        self, index: str, table_ids: list[str], args: list[str | float]
    ) -> list[str]:
        if not table_ids:
            return []
        async with self.client.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                keys = [*_stored(table_id), _key(table_id, "presence"), _key(table_id, "lease")]
                await self._expire(keys=keys, args=args, client=pipe)
            results = await pipe.execute()
        removed = [t for t, result in zip(table_ids, results, strict=True) if result]
        if removed:
            await self.client.zrem(index, *removed)
        return [t for t, result in zip(table_ids, results, strict=True) if result == 1]

    # --- scoresheets -----------------------------------------------------------------------

    def _sheet_lifetime(self) -> int:
        """Seconds a sheet lives after a change (0: for ever): as long as a finished table."""
        return self._lifetime(FINISHED)

    async def create_sheet(self, sheet_id: str, data: dict[str, Any], token: str) -> None:
        now = repr(time.time())
        fields: dict[str | bytes | bytearray | memoryview[int] | int | float, Any] = {
            "created": now,
            "updated": now,
            "data": json.dumps(data),
            "token": token,
            "rev": 0,
        }
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_sheet_key(sheet_id), mapping=fields)
            if seconds := self._sheet_lifetime():
                pipe.expire(_sheet_key(sheet_id), seconds)
            await pipe.execute()

    async def sheet(self, sheet_id: str) -> Sheet | None:
        found = _sheet_of(sheet_id, await self.client.hgetall(_sheet_key(sheet_id)))
        if found is None and self.sheets_before is not None:
            found = await self._sheet_before(sheet_id)
        return found

    async def _sheet_before(self, sheet_id: str) -> Sheet | None:
        """A sheet this process kept in SQLite before sheets moved to Redis, stored in Redis
        from now on (once: a sheet another process stored first is read from Redis)."""
        assert self.sheets_before is not None
        row = await asyncio.to_thread(self.sheets_before.sheet, sheet_id)
        if row is None or row["token"] is None:
            return None  # never here, or ownerless until ``callbreak adopt`` (in the file)
        args: list[str | int] = [
            repr(row["created"]),
            repr(row["updated"]),
            json.dumps(row["data"]),
            str(row["token"]),
            self._sheet_lifetime(),
        ]
        await self._adopt_sheet(keys=[_sheet_key(sheet_id)], args=args)
        return _sheet_of(sheet_id, await self.client.hgetall(_sheet_key(sheet_id)))

    async def sheets(self, ids: Sequence[str]) -> list[Sheet]:
        found = [sheet for sheet_id in ids if (sheet := await self.sheet(sheet_id)) is not None]
        found.sort(key=lambda sheet: -float(sheet["updated"]))
        return found

    async def update_sheet(self, sheet_id: str, data: dict[str, Any], rev: int) -> bool:
        args: list[str | int] = [rev, json.dumps(data), repr(time.time()), self._sheet_lifetime()]
        return bool(await self._sheet(keys=[_sheet_key(sheet_id)], args=args))

    async def expire_sheets(self, before: float) -> int:
        # Sheets in Redis expire on their own (their lifetime is set with every change); the
        # sheets still in this process's SQLite file are swept there.
        if self.sheets_before is None:
            return 0
        return await asyncio.to_thread(self.sheets_before.expire_sheets, before)

    # --- profiles (web.profiles) -------------------------------------------------------------
    # Kept for ever, as a person's ratings are: docs/deploy.md, *Retention*.

    async def create_profile(self, profile: dict[str, Any]) -> None:
        fields: dict[str | bytes | bytearray | memoryview[int] | int | float, Any] = {
            key: profile[key] if isinstance(profile[key], str) else repr(profile[key])
            for key in ("id", "token", "name", "avatar", "created", "updated")
        }
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(f"cb:profile:{{{profile['id']}}}", mapping=fields)
            pipe.set(f"cb:profile-token:{{{profile['token']}}}", profile["id"])
            pipe.zadd(SEEN, {profile["id"]: float(profile["updated"])})
            await pipe.execute()

    async def profile(self, profile_id: str) -> dict[str, Any] | None:
        return _profile_of(await self.client.hgetall(f"cb:profile:{{{profile_id}}}"))

    async def profile_of(self, token: str) -> dict[str, Any] | None:
        profile_id = await self.client.get(f"cb:profile-token:{{{token}}}")
        return None if profile_id is None else await self.profile(str(profile_id))

    async def profiles(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        # One round trip for a leaderboard's hundred, not a hundred.
        async with self.client.pipeline(transaction=False) as pipe:
            for profile_id in ids:
                pipe.hgetall(f"cb:profile:{{{profile_id}}}")
            found = [_profile_of(fields) for fields in await pipe.execute()]
        return [profile for profile in found if profile is not None]

    async def update_profile(self, profile_id: str, name: str, avatar: str) -> bool:
        key = f"cb:profile:{{{profile_id}}}"
        now = time.time()
        changed = bool(await self._profile(keys=[key], args=[name, avatar, repr(now)]))
        if changed:
            await self.client.zadd(SEEN, {profile_id: now}, gt=True)
        return changed

    # --- pools' waiting lists (web.pools) ----------------------------------------------------

    async def wait(self, pool: str, profile: str, since: float, stale: float) -> dict[str, Any]:
        place = json.dumps({"state": "waiting", "pool": pool, "since": since})
        args = [profile, pool, repr(since), repr(stale), WAITING, place]
        held = await self._wait(keys=[PLACES], args=args)
        return dict(json.loads(held))

    async def unwait(self, profile: str) -> dict[str, Any] | None:
        held = await self._unwait(keys=[PLACES], args=[profile, WAITING])
        return None if held is None else dict(json.loads(held))

    async def place(self, profile: str) -> dict[str, Any] | None:
        held = await self.client.hget(PLACES, profile)
        return None if held is None else dict(json.loads(held))

    async def waiting(self, pool: str) -> list[tuple[str, float]]:
        found: list[Any] = await self.client.zrange(WAITING + pool, 0, -1, withscores=True)
        return [(str(profile), float(since)) for profile, since in found]

    async def take(self, pool: str, profiles: Sequence[str], at: float) -> bool:
        args = [pool, repr(at), *profiles]
        return bool(await self._take(keys=[PLACES, WAITING + pool], args=args))

    async def placed(self, places: Mapping[str, dict[str, Any] | None]) -> None:
        async with self.client.pipeline(transaction=True) as pipe:
            for profile, place in places.items():
                if place is None:
                    pipe.hdel(PLACES, profile)
                else:
                    pipe.hset(PLACES, profile, json.dumps(place))
            await pipe.execute()

    async def offer(self, pool: str, room: str, at: float) -> None:
        await self.client.zadd(OFFERS + pool, {room: at}, nx=True)

    async def offers(self, pool: str) -> list[str]:
        return [str(room) for room in await self.client.zrange(OFFERS + pool, 0, -1)]

    async def withdraw(self, pool: str, room: str) -> None:
        await self.client.zrem(OFFERS + pool, room)

    # --- ratings (callbreak.ratings) ---------------------------------------------------------

    async def settle(self, outcome: Outcome) -> bool:
        ratings = _rating_key(outcome.pool, "ratings")
        rated = _rating_key(outcome.pool, "rated")
        board = _rating_key(outcome.pool, "board")
        people = [seat.profile for seat in outcome.seats if isinstance(seat, Person)]
        await self.client.sadd(RATED_POOLS, outcome.pool)  # for the profiles' retention
        async with self.client.pipeline(transaction=True) as pipe:
            while True:
                # WATCH: a rating of another match with one of these people (or of this match,
                # by another process) written between the read and the write fails the write,
                # which is then made again from what was written.
                try:
                    await pipe.watch(ratings, rated)
                    if await pipe.sismember(rated, outcome.match_id):
                        return False
                    held = await pipe.hmget(ratings, people) if people else []
                    book = Book(
                        outcome.pool,
                        {p: _rating_of(text) or NEW for p, text in zip(people, held, strict=True)},
                    )
                    after = settle(book, outcome)
                    at = time.time()
                    pipe.multi()  # type: ignore[no-untyped-call]
                    for profile in people:
                        now = after.rating(profile)
                        value = [now.mu, now.sigma, now.matches, now.left]
                        pipe.hset(ratings, profile, json.dumps(value))
                        history = _rating_key(outcome.pool, f"history:{profile}")
                        change = [outcome.match_id, at, now.mu, now.sigma, now.matches]
                        pipe.rpush(history, json.dumps(change))
                        pipe.ltrim(history, -HISTORY_MOST, -1)
                        if not now.provisional:
                            pipe.zadd(board, {profile: now.ordinal})
                    pipe.sadd(rated, outcome.match_id)
                    await pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    async def rating(self, pool: str, profile: str) -> PoolRating | None:
        return _rating_of(await self.client.hget(_rating_key(pool, "ratings"), profile))

    async def leaderboard(self, pool: str, count: int) -> list[tuple[str, PoolRating]]:
        # Best first, equal ordinals by profile id as SQLite orders them (ZREVRANGE orders them
        # by id backwards; ties of a float ordinal are all but never).
        found: list[Any] = await self.client.zrevrange(
            _rating_key(pool, "board"), 0, max(0, count - 1), withscores=True
        )
        ordered = sorted(found, key=lambda item: (-float(item[1]), str(item[0])))[:count]
        ids = [str(profile) for profile, _ in ordered]
        held = await self.client.hmget(_rating_key(pool, "ratings"), ids) if ids else []
        return [
            (profile, rating)
            for profile, text in zip(ids, held, strict=True)
            if (rating := _rating_of(text)) is not None
        ]

    async def rank(self, pool: str, profile: str) -> int | None:
        held = await self.rating(pool, profile)
        if held is None or held.provisional:
            return None
        board = _rating_key(pool, "board")
        above = await self.client.zcount(board, f"({held.ordinal!r}", "+inf")
        equal = await self.client.zrangebyscore(board, held.ordinal, held.ordinal)
        return int(above) + sum(1 for other in equal if str(other) < profile) + 1

    async def rating_history(self, pool: str, profile: str, count: int) -> list[dict[str, Any]]:
        key = _rating_key(pool, f"history:{profile}")
        found = await self.client.lrange(key, -count, -1) if count > 0 else []
        changes = []
        for text in found:
            match_id, at, mu, sigma, matches = json.loads(text)
            changes.append(
                {"match": match_id, "at": at, "mu": mu, "sigma": sigma, "matches": matches}
            )
        return changes

    # --- a person's plays and use (the profile's page; retention) ---------------------------

    async def tally(self, profile: str, match_id: str, at: float, play: dict[str, Any]) -> None:
        kept = json.dumps(play | {"at": at})
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(f"cb:plays:{{{profile}}}", match_id, kept)
            pipe.zadd(SEEN, {profile: at}, gt=True)
            await pipe.execute()

    async def plays(self, profile: str, count: int) -> list[dict[str, Any]]:
        held = await self.client.hgetall(f"cb:plays:{{{profile}}}")
        found = [json.loads(text) | {"match": str(match)} for match, text in held.items()]
        found.sort(key=lambda play: (float(play["at"]), str(play["match"])), reverse=True)
        return found[:count]

    async def touch_profile(self, profile: str, at: float) -> None:
        await self.client.zadd(SEEN, {profile: at}, gt=True)

    async def expire_profiles(self, before: float) -> list[str]:
        gone: list[str] = []
        pools = sorted(str(pool) for pool in await self.client.smembers(RATED_POOLS))
        while True:
            found = await self.client.zrangebyscore(
                SEEN, "-inf", f"({before!r}", start=0, num=EXPIRE_BATCH
            )
            if not found:
                return gone
            for profile in map(str, found):
                seen = await self.client.zscore(SEEN, profile)
                if seen is not None and float(seen) >= before:
                    continue  # used again since (through another process): kept
                token = await self.client.hget(f"cb:profile:{{{profile}}}", "token")
                token = None if token is None else str(token)
                async with self.client.pipeline(transaction=False) as pipe:
                    pipe.delete(f"cb:profile:{{{profile}}}", f"cb:plays:{{{profile}}}")
                    if token is not None:
                        pipe.delete(f"cb:profile-token:{{{token}}}")
                    for pool in pools:
                        pipe.hdel(_rating_key(pool, "ratings"), profile)
                        pipe.zrem(_rating_key(pool, "board"), profile)
                        pipe.delete(_rating_key(pool, f"history:{profile}"))
                    pipe.hdel(PLACES, profile)
                    pipe.zrem(SEEN, profile)
                    await pipe.execute()
                gone.append(profile)
            if len(found) < EXPIRE_BATCH:
                return gone

    # --- the daily challenge (web.challenge) -------------------------------------------------

    async def secret(self, name: str, made: str) -> str:
        key = f"cb:secret:{name}"
        await self.client.set(key, made, nx=True)
        return str(await self.client.get(key))

    async def begin_attempt(
        self, attempt: dict[str, Any], per_address: int
    ) -> tuple[dict[str, Any], bool]:
        day = attempt["day"]
        unranked = attempt | {"ranked": False, "why": "address"}
        args = [
            attempt["profile"],
            json.dumps(attempt),
            attempt["address"],
            per_address,
            json.dumps(unranked),
            self._day_lifetime(day),
        ]
        keys = [_day_key(day, "attempts"), _day_key(day, "addresses")]
        made, kept = await self._begin(keys=keys, args=args)
        return dict(json.loads(kept)), bool(made)

    def _day_lifetime(self, day: str) -> int:
        """Seconds a day's attempts are kept from now: to the standings' retention after the
        day's close (0: for ever)."""
        kept = self.retention.standings
        if kept is None:
            return 0
        closes = datetime.datetime.fromisoformat(day).replace(tzinfo=datetime.UTC).timestamp()
        return max(1, math.ceil(closes + DAY_SECONDS + kept - time.time()))

    async def attempt(self, day: str, profile: str) -> dict[str, Any] | None:
        held = await self.client.hget(_day_key(day, "attempts"), profile)
        return None if held is None else dict(json.loads(held))

    async def attempts(self, day: str) -> list[dict[str, Any]]:
        held = await self.client.hgetall(_day_key(day, "attempts"))
        return [json.loads(text) for text in held.values()]

    async def update_attempt(
        self, day: str, profile: str, changes: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        key = _day_key(day, "attempts")
        async with self.client.pipeline(transaction=True) as pipe:
            while True:
                # WATCH: another process's change between the read and the write is kept,
                # and this one made again on it.
                try:
                    await pipe.watch(key)
                    held = await pipe.hget(key, profile)
                    if held is None:
                        return None
                    attempt = dict(json.loads(held)) | dict(changes)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(key, profile, json.dumps(attempt))
                    await pipe.execute()
                    return attempt
                except redis.WatchError:
                    continue

    async def expire_attempts(self, before: str) -> int:
        return 0  # each day's keys expire on their own (_day_lifetime)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        await self.client.aclose()


def _reader_ended(task: asyncio.Task[None]) -> None:
    """Hear how the pub/sub reader ended (cancelled at close, or a failure for the log): a
    task's exception nobody retrieves is only reported when it is collected, if ever."""
    if not task.cancelled() and task.exception() is not None:
        LOG.error("the Redis pub/sub reader stopped", exc_info=task.exception())
