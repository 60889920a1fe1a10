"""Where the gateway's data lives in Redis: the names of a table's keys and channel.

One Redis holds everything under the names it always had. A Redis Cluster shards by hash
slot, and runs a script only on keys of one slot, while a commit writes the table, its
events, its reply and the site's indexes at once (redis_store.py). So on a cluster every
table belongs to one of :data:`CLUSTER_BUCKETS` buckets (by a CRC-32 of its id, the same for
every replica), each bucket is one hash tag, and each bucket has its own indexes (the tables
in play, their clocks, the lobby closings to do, the finished and expired tables): a commit
touches one slot, and a sweep reads every bucket's index. 256 buckets spread over up to ~100
masters; a bucket is moved with its slot (``redis-cli --cluster reshard``).

The seat tokens are found by their digest alone, so their keys have no tag: no script
touches them (redis_store.py keeps them apart).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Final

PREFIX: Final = "lexio:gw:"
CLUSTER_BUCKETS: Final = 256
"""Fixed for a cluster's lifetime: another number would put every table elsewhere."""
TABLE_CHANNEL_PREFIX: Final = f"{PREFIX}bus:"


@dataclass(frozen=True)
class Indexes:
    """The site-wide lists of one bucket (of the whole site on one Redis)."""

    deadlines: str
    """Tables in play by their clock's next instant (the name predates other clocks)."""
    playing: str
    lobby_closes: str
    """Finished tables still to close in the lobby, by when the next try is due."""
    ended: str
    """Finished tables whose record is kept, by when their game ended."""
    expired: str
    """The tombstones of finished tables whose record expired, by when their game ended."""


def _indexes(tag: str) -> Indexes:
    return Indexes(
        f"{PREFIX}{tag}deadlines",
        f"{PREFIX}{tag}playing",
        f"{PREFIX}{tag}lobby-closes",
        f"{PREFIX}{tag}ended",
        f"{PREFIX}{tag}expired",
    )


class RedisLayout:
    """The names for one Redis (``cluster`` false) or a Redis Cluster.

    >>> RedisLayout(cluster=False).table("t-1a2b")
    'lexio:gw:t:t-1a2b'
    >>> RedisLayout(cluster=True).table("t-1a2b")
    'lexio:gw:{gw:023}:t:t-1a2b'
    >>> RedisLayout(cluster=True).channel("t-1a2b")
    'lexio:gw:{gw:023}:bus:t-1a2b'
    """

    def __init__(self, *, cluster: bool) -> None:
        self.cluster = cluster
        buckets = range(CLUSTER_BUCKETS) if cluster else range(1)
        self.all_indexes: tuple[Indexes, ...] = tuple(
            _indexes(self._bucket_tag(b)) for b in buckets
        )
        """Every bucket's indexes (one Redis: one, the site's)."""

    def _bucket_tag(self, bucket: int) -> str:
        return f"{{gw:{bucket:03d}}}:" if self.cluster else ""

    def _tag(self, table_id: str) -> str:
        if not self.cluster:
            return ""
        return self._bucket_tag(zlib.crc32(table_id.encode()) % CLUSTER_BUCKETS)

    def table(self, table_id: str) -> str:
        return f"{PREFIX}{self._tag(table_id)}t:{table_id}"

    def events(self, table_id: str) -> str:
        return f"{PREFIX}{self._tag(table_id)}ev:{table_id}"

    def tokens(self, table_id: str) -> str:
        """The digests of the table's seat tokens."""
        return f"{PREFIX}{self._tag(table_id)}tk:{table_id}"

    def reply(self, table_id: str, player_id: str = "", action_id: str = "") -> str:
        """An action's stored reply (no player: the name a commit without one passes)."""
        if not player_id:
            return f"{PREFIX}{self._tag(table_id)}r:none"
        return f"{PREFIX}{self._tag(table_id)}r:{table_id}:{player_id}:{action_id}"

    def barrier(self, table_id: str) -> str:
        """A counter in the table's slot, written only to make WAIT wait for what came before
        it there (redis_store.py)."""
        return f"{PREFIX}{self._tag(table_id)}barrier"

    def indexes(self, table_id: str) -> Indexes:
        return self.all_indexes[
            zlib.crc32(table_id.encode()) % CLUSTER_BUCKETS if self.cluster else 0
        ]

    def channel(self, table_id: str) -> str:
        """The shard channel of the table's notices, in its keys' slot (a commit's script
        publishes on it). One Redis: the name from before clusters, whose braces were meant
        as the hash tag they now are not."""
        if not self.cluster:
            return f"{TABLE_CHANNEL_PREFIX}{{{table_id}}}"
        return f"{PREFIX}{self._tag(table_id)}bus:{table_id}"

    def table_of_channel(self, channel: str) -> str:
        """The table whose shard channel this is.

        >>> layout = RedisLayout(cluster=True)
        >>> layout.table_of_channel(layout.channel("t-1a2b"))
        't-1a2b'
        """
        if not self.cluster:
            return channel[len(TABLE_CHANNEL_PREFIX) + 1 : -1]
        return channel.split("}:bus:", 1)[1]

    @staticmethod
    def token(digest: str) -> str:
        return f"{PREFIX}k:{digest}"
