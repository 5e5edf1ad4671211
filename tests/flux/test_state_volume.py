"""The volume under a Flux home: ``df -P -k`` and ``df -P -i`` read, and when it is nearly full.

Outputs are GNU coreutils' own (``df -P -k`` / ``df -P -i`` of a tmpfs and of ext4 with
root's reserved blocks; btrfs keeps no inode count and prints 0). The thresholds are
judged on volumes of very different sizes: a percentage alone would warn on a huge volume
with hundreds of GiB free, a free-space floor alone on any small one.
"""

from __future__ import annotations

import pytest

from bundler.products.flux.normalize.volumes import parse_df_line
from bundler.products.flux.rules.volume import pressure, used_percent
from schemas.evidence import LocalStateEvidence, StateVolume
from tests.flux.test_normalize import healthy_raw

KIB_TMPFS = (
    "Filesystem     1024-blocks  Used Available Capacity Mounted on\n"
    "lab-disk              4096  3904       192      96% /srv/flux work/w2\n"
)
INODES_TMPFS = (
    "Filesystem     Inodes IUsed IFree IUse% Mounted on\n"
    "lab-disk           64    64     0  100% /srv/flux work/w2\n"
)
INODES_BTRFS = (
    "Filesystem     Inodes IUsed IFree IUse% Mounted on\n"
    "/dev/sdb1           0     0     0     - /srv\n"
)
GIB = 1024**3


def test_df_lines_are_read_with_a_mount_that_holds_spaces() -> None:
    blocks = parse_df_line(KIB_TMPFS)
    assert blocks is not None
    assert (blocks.mount, blocks.total, blocks.used, blocks.free, blocks.line) == (
        "/srv/flux work/w2",
        4096,
        3904,
        192,
        2,
    )
    inodes = parse_df_line(INODES_TMPFS)
    assert inodes is not None
    assert (inodes.total, inodes.used, inodes.free) == (64, 64, 0)
    assert parse_df_line("df: /srv/flux: No such file or directory\n") is None


def test_used_percent_is_dfs_own_rounded_up_over_what_users_may_use() -> None:
    # ext4 keeps 5 % for root: 950 used + 0 available of 1000 is 100 % to df, not 95 %.
    assert used_percent(950, 0) == 100
    assert used_percent(3904, 192) == 96  # 95.3 rounds up, as df's Capacity column does
    assert used_percent(0, 0) == 0


def _volume(total: int, used: int, free: int, inodes: tuple[int, int] | None = None) -> StateVolume:
    volume = StateVolume(mount="/srv", total_bytes=total, used_bytes=used, free_bytes=free)
    if inodes is not None:
        volume.inodes_total, volume.inodes_free = inodes
    return volume


@pytest.mark.parametrize(
    ("volume", "expected"),
    [
        # a 4 MiB tmpfs at 96 %: 192 KiB left is nearly full
        (_volume(4096 * 1024, 3904 * 1024, 192 * 1024), ("blocks", False)),
        # 10 TiB at 96 %: 400 GiB left is room, whatever the percentage
        (_volume(10240 * GIB, 9830 * GIB, 410 * GIB), None),
        # 100 GiB at 96 %: 4 GiB left is under the 10 GiB floor
        (_volume(100 * GIB, 96 * GIB, 4 * GIB), ("blocks", False)),
        # a 4 MiB tmpfs at 50 %: plenty, by share, though far under any floor
        (_volume(4096 * 1024, 2048 * 1024, 2048 * 1024), None),
        # ext4 with root's reserve: nothing an unprivileged writer may use
        (_volume(100 * GIB, 95 * GIB, 0), ("blocks", True)),
        # inodes gone, blocks free: full all the same
        (_volume(4096 * 1024, 8 * 1024, 4088 * 1024, inodes=(64, 0)), ("inodes", True)),
        # inodes at 97 % with a million left: room
        (_volume(100 * GIB, GIB, 99 * GIB, inodes=(40_000_000, 1_000_000)), None),
        # inodes at 97 % with 3,000 left: nearly full
        (_volume(100 * GIB, GIB, 99 * GIB, inodes=(100_000, 3_000)), ("inodes", False)),
        # both nearly: the one further gone is named
        (_volume(4096 * 1024, 3904 * 1024, 192 * 1024, inodes=(100, 1)), ("inodes", False)),
        # nothing read: no opinion
        (StateVolume(mount="/srv"), None),
    ],
)
def test_nearly_full_needs_both_the_share_and_the_little_left(
    volume: StateVolume, expected: tuple[str, bool] | None
) -> None:
    said = pressure(volume)
    assert (None if said is None else (said.of, said.full)) == expected


def test_the_inode_counts_join_the_volume_the_blocks_were_read_of() -> None:
    raw = healthy_raw()
    raw.host("state-volume", "h03", KIB_TMPFS)
    raw.host("state-inodes", "h03", INODES_TMPFS)
    raw.host("state-volume", "h02", KIB_TMPFS.replace("/srv/flux work/w2", "/"))
    raw.host("state-inodes", "h02", INODES_BTRFS.replace("/srv", "/"))
    raw.host("state-volume", "h01", KIB_TMPFS.replace("/srv/flux work/w2", "/srv"))
    raw.host("state-inodes", "h01", INODES_TMPFS.replace("/srv/flux work/w2", "/other"))
    volumes = {v.host_alias: v for v in raw.normalize()[LocalStateEvidence].volumes or []}
    w2 = volumes["h03"]
    assert (w2.worker, w2.mount, w2.free_bytes, w2.used_bytes) == (
        "w2",
        "/srv/flux work/w2",
        192 * 1024,
        3904 * 1024,
    )
    assert (w2.inodes_total, w2.inodes_free) == (64, 0)
    assert w2.inodes_source is not None
    assert (w2.inodes_source.member, w2.inodes_source.line_start) == (
        "hosts/h03/state-inodes.txt",
        2,
    )
    # btrfs keeps no count: unknown, not "0 of 0 free"
    assert (volumes["h02"].inodes_total, volumes["h02"].inodes_free) == (None, None)
    # an inode line of another mount is not this volume's
    assert volumes["h01"].inodes_total is None
