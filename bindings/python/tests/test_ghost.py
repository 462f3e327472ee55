"""Ghosts: the files DDNet's own recorder wrote (tests/fixtures/ghosts, see its README), read
back to the rows it was fed; written, and read back; hostile bytes raise twcodec.Error."""

import pytest

import twcodec
from conftest import REPO

GHOSTS = REPO / "tests" / "fixtures" / "ghosts"


def fed(name):
    """The character rows the harness fed DDNet's recorder (`NAME.rows.txt`)."""
    rows = []
    for line in (GHOSTS / f"{name}.rows.txt").read_text().splitlines():
        kind, *ints = line.split()
        if kind in ("char", "char_notick"):
            rows.append([int(i) for i in ints])
    return rows


FIELDS = ["x", "y", "vel_x", "vel_y", "angle", "direction", "weapon", "hook_state",
          "hook_x", "hook_y", "attack_tick"]


def test_a_ghost_ddnet_recorded():
    ghost = twcodec.Ghost.open(GHOSTS / "short.gho")
    assert (ghost.version, ghost.owner, ghost.map_name) == (6, "nameless tee", "ghostmap")
    assert ghost.map_sha256 == bytes(range(0xA0, 0xC0)).hex()
    assert ghost.map_crc is None
    assert (ghost.time_ms, ghost.num_ticks, len(ghost)) == (480, 12, 12)
    assert ghost.start_tick == 5000
    assert ghost.skin == {"name": "santa_limekitty", "use_custom_color": 1,
                          "color_body": 0x1B6F74, "color_feet": 0xFF00FF}
    assert ghost.ticks == list(range(5000, 5012))
    rows = ghost.rows()
    assert [[row[f] for f in FIELDS] + [row["tick"]] for row in rows] == fed("short")
    assert rows[0]["weapon_name"] == "hammer" and rows[0]["time"] == 0.0
    assert list(ghost) == rows
    assert repr(ghost) == "Ghost(version 6, \"nameless tee\" on \"ghostmap\", 12 ticks, 480 ms)"


@pytest.mark.parametrize("name", ["long", "noskin_wrap", "notick", "unknown_type"])
def test_every_recorded_ghost_reads_as_fed_and_round_trips(name):
    data = (GHOSTS / f"{name}.gho").read_bytes()
    ghost = twcodec.Ghost.parse(data)
    rows = [[row[f] for f in FIELDS] for row in ghost.rows()]
    assert rows == [r[:11] for r in fed(name)]
    assert ghost.to_bytes() == data


def test_items_keep_unknown_types():
    ghost = twcodec.Ghost.open(GHOSTS / "unknown_type.gho")
    items = ghost.items()
    assert [i["type"] for i in items[:2]] == [3, 0]
    assert {"chunk": 3, "type": 7, "ints": [10, -10]} in items


def test_written_ghosts_read_back(tmp_path):
    ghost = twcodec.Ghost.open(GHOSTS / "long.gho")
    rows = ghost.rows()
    # The rows of a ghost, written again with its header, are its bytes again.
    again = twcodec.Ghost.write(
        ghost.owner, ghost.map_name, rows, time_ms=ghost.time_ms, start_tick=ghost.start_tick,
        skin=ghost.skin, map_sha256=ghost.map_sha256)
    assert again.to_bytes() == ghost.to_bytes()
    # Version 5 with a CRC, characters without tick, a skin by name.
    old = twcodec.Ghost.write("tee", "dm1", [{"x": 32 * i} for i in range(60)],
                              time_ms=1200, version=5, map_crc=0xDEADBEEF, skin="default")
    assert (old.version, old.map_crc, old.map_sha256) == (5, 0xDEADBEEF, None)
    assert [r["x"] for r in old.rows()] == [32 * i for i in range(60)]
    assert old.skin["name"] == "default" and old.start_tick is None
    path = tmp_path / "old.gho"
    old.save(path)
    assert twcodec.Ghost.open(path).to_bytes() == old.to_bytes()
    assert not old.map_matches(b"not the map")


def test_what_ddnet_refuses_raises():
    with pytest.raises(twcodec.Error, match="must be above 0"):
        twcodec.Ghost.write("tee", "dm1", [], time_ms=100)
    with pytest.raises(twcodec.Error, match="owner must be UTF-8 of at most 15 bytes"):
        twcodec.Ghost.write("x" * 16, "dm1", [{"x": 1}], time_ms=100)
    with pytest.raises(ValueError, match="64 hex digits"):
        twcodec.Ghost.write("tee", "dm1", [{"x": 1}], time_ms=100, map_sha256="abc")
    data = (GHOSTS / "short.gho").read_bytes()
    with pytest.raises(twcodec.Error) as error:
        twcodec.Ghost.parse(data[:-3])
    assert error.value.kind == "malformed"
    assert str(error.value).startswith("chunk #2: the chunk's ")
    bad = bytearray(data)
    bad[8] = 9
    with pytest.raises(twcodec.Error, match="unsupported ghost version 9"):
        twcodec.Ghost.parse(bytes(bad))


def test_scan_has_ghost_rows():
    row = twcodec.scan_file(GHOSTS / "short.gho")
    assert row["kind"] == "ghost"
    assert row["ghost"]["owner"] == "nameless tee"
