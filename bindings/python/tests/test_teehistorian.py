"""twcodec.Teehistorian over the files DDNet's own writer made (tests/fixtures/teehistorian)."""

import pytest

import twcodec
from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "teehistorian"


def test_header_and_records_of_ddnets_writer():
    th = twcodec.Teehistorian.open(FIXTURES / "join_drop.teehistorian")
    assert th.header["comment"] == "teehistorian@ddnet.tw"
    assert th.header["version"] == "2"
    assert (th.map_name, th.game_uuid) == ("Kobra 3 Solo", "a1eb7182-796e-3b3e-941d-38ca71b2a4a8")
    records = list(th.records())
    assert [r["kind"] for r in records] == ["ex", "join", "ex", "join", "drop", "ex", "ex", "finish"]
    assert records[0] == {
        "index": 0,
        "offset": 3190,
        "tick": 0,
        "kind": "ex",
        "name": "joinver6",
        "uuid": "1899a382-71e3-36da-937d-c9de6bb95b1d",
        "payload": {"cid": 6},
    }
    assert records[4]["reason"] == "too many pancakes"
    assert records[6]["payload"] == {"cid": 21, "name": "nameless tee"}
    # Iterating the object is iterating its records.
    assert list(th) == records
    assert repr(th) == 'Teehistorian(map_name="Kobra 3 Solo", game_uuid="a1eb7182-796e-3b3e-941d-38ca71b2a4a8")'


def test_ticks_players_inputs_and_summary():
    th = twcodec.Teehistorian.open(FIXTURES / "players.teehistorian")
    records = list(th)
    assert [(r["tick"], r["kind"], r.get("cid")) for r in records[:3]] == [
        (1, "player_new", 0),
        (2, "player_diff", 0),
        (3, "player_old", 0),
    ]
    assert records[1]["dx"] == 1 and records[1]["dy"] == -1
    summary = th.summary()
    assert summary["records"] == 9 and summary["last_tick"] == 500
    assert summary["players"] == [0, 1, 2] and summary["finished"] is True
    inputs = [r for r in twcodec.Teehistorian.open(FIXTURES / "input.teehistorian") if r["kind"] == "input_new"]
    assert inputs[0]["input"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


def test_a_server_recording_and_bytes():
    data = (FIXTURES / "server_econ.teehistorian").read_bytes()
    th = twcodec.Teehistorian.parse(data)
    assert th.to_bytes() == data
    commands = [(r["cmd"], r["args"]) for r in th if r["kind"] == "console_command"]
    assert ("tune", ["gravity", "0.3"]) in commands
    assert th.header["config"]["sv_tee_historian"] == "1"


def test_errors():
    with pytest.raises(twcodec.Error, match="not a teehistorian file: the file is a demo"):
        twcodec.Teehistorian.parse(b"TWDEMO\x00\x06")
    data = (FIXTURES / "finished.teehistorian").read_bytes()[:-1] + b"\x42\x01"
    th = twcodec.Teehistorian.parse(data)
    with pytest.raises(twcodec.Error, match=r"record #0 \(tick 0\): the input ends inside the player_new"):
        list(th)
    with pytest.raises(twcodec.Error, match="no NUL ends the JSON header"):
        twcodec.Teehistorian.parse(data[:40])


def test_to_demo():
    th = twcodec.Teehistorian.open(FIXTURES / "players.teehistorian")
    data = th.to_demo(twcodec.sample(), player=0)
    demo = twcodec.Demo.parse(data)
    assert demo.map_name == "Kobra 3 Solo"
    assert [tick.tick for tick in demo.ticks()] == [1, 2, 3, 4, 500]
