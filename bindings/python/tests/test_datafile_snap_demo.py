"""Datafiles, snapshots and deltas, and demos replayed tick by tick."""

import pytest

import twcodec

DM1 = "075_tw_dm1_join_chat_walk_disconnect__client.demo"


def test_datafile_items_and_data():
    df = twcodec.Datafile.parse(twcodec.sample())
    assert (df.version, len(df), df.data_count) == (4, 24, 24)
    assert df.warnings == []
    # The sample has 9 layers (type 5), 2 groups (type 4), 2 images (type 2), a version item.
    assert [len(df.items_of_type(t)) for t in (0, 2, 4, 5)] == [1, 2, 2, 9]
    assert df.item(0, 0) == [1]
    assert df.items()[0] == (0, 0, [1])
    # The embedded image's data: 4x4 RGBA pixels.
    image = df.items_of_type(2)[1][2]
    assert df.data_size(image[5]) == len(df.data(image[5])) == 4 * 4 * 4
    assert df.to_bytes() == twcodec.sample()
    with pytest.raises(twcodec.Error) as error:
        df.data(99)
    assert error.value.kind == "malformed"


def test_snapshot_round_trips():
    old, new = twcodec.Snapshot.sample(10), twcodec.Snapshot.sample(11)
    assert len(old) == 300
    # DDNet's checksum: the item ints summed as wrapping 32-bit ints.
    total = sum(i for _, _, ints in old.items() for i in ints)
    assert old.checksum == (total + 2**31) % 2**32 - 2**31
    for packed in (False, True):
        assert twcodec.Snapshot.from_bytes(old.to_bytes(packed=packed), packed=packed) == old
    delta = twcodec.SnapshotDelta.create(old, new)
    assert not delta.is_empty
    assert old.apply(delta) == new
    assert old.apply(delta).checksum == new.checksum
    for packed in (False, True):
        data = delta.to_bytes(packed=packed)
        assert old.apply(twcodec.SnapshotDelta.from_bytes(data, packed=packed)) == new
    # The sample's types are DDNet's: under 0.7's pre-agreed sizes its characters do not fit.
    with pytest.raises(twcodec.Error) as error:
        delta.to_bytes(protocol="teeworlds07")
    assert str(error.value).endswith("type 9 has a pre-agreed size of 15 ints, this item has 22")
    assert twcodec.SnapshotDelta.create(new, new).is_empty


def test_snapshot_built_from_items_and_checked():
    snap = twcodec.Snapshot([(4, 0, [320, 96, 0, 0]), (9, 0, [0] * 22)])
    assert snap.items() == [(4, 0, [320, 96, 0, 0]), (9, 0, [0] * 22)]
    assert snap.item(4, 0) == [320, 96, 0, 0] and snap.item(4, 1) is None
    bigger = twcodec.Snapshot([(4, 0, [320, 96, 0, 0]), (9, 0, [1] * 22)])
    delta = twcodec.SnapshotDelta.create(snap, bigger)
    assert delta.updates == [(9, 0, [1] * 22)] and delta.removed == []
    with pytest.raises(twcodec.Error) as error:
        twcodec.Snapshot([(4, 0, [1]), (4, 0, [2])])
    assert str(error.value) == "snapshot item #1 (type 4, id 0): another item has this key"


def test_sample_snapshot_ticks_within_range():
    # Past the range the sample's arithmetic overflows: pyo3's PanicException in a debug build.
    assert len(twcodec.Snapshot.sample(67108863)) == len(twcodec.Snapshot.sample(-67108863))
    for tick in (67108864, 2**31 - 1, -(2**31)):
        with pytest.raises(twcodec.Error, match=r"tick is from -67108863 to 67108863, not -?\d+$"):
            twcodec.Snapshot.sample(tick)


def test_demo_ticks_as_the_session_recorded_them(corpus):
    demo = twcodec.Demo.open(corpus / "demos" / DM1)
    # The server log of this session (demos/traffic/075_tw_dm1_join_chat_walk_disconnect/):
    # maps/dm1.map sha256 491af17a..., crc 64548818, version 0.7 802f1be60a05665f.
    assert (demo.version, demo.net_version, demo.protocol) == (4, "0.7 802f1be60a05665f", "teeworlds07")
    assert (demo.map_name, demo.map_crc, demo.map_crc_matches) == ("dm1", 0x64548818, True)
    assert demo.map_sha256 == "491af17a510214506270904f147a4c30ae0a85b91bb854395bef8c397fc078c3"
    assert demo.recorded_by == "client"
    ticks = list(demo.ticks())
    # As snapshots/demo_ticks_075_tw_dm1_join_chat_walk_disconnect_client.snap lists them.
    assert len(ticks) == 194
    first = ticks[0]
    assert (first.tick, first.update, first.keyframe) == (430, "full", True)
    assert (len(first.snapshot), first.snapshot.checksum) == (19, -275282204)
    assert (ticks[-1].tick, len(ticks[-1].snapshot)) == (816, 24)
    # An unchanged tick shares its snapshot.
    assert ticks[1].update == "unchanged" and ticks[1].snapshot == first.snapshot
    # The player said "hello" once (the server log's chat line): one message in the demo.
    messages = [(t.tick, m) for t in ticks for m in t.messages]
    assert len(messages) == 1 and b"hello" in messages[0][1]
    # The embedded map is the corpus map DEMOS.md names.
    assert demo.map_bytes() == (corpus / "maps" / "tw07dev2018_dm1_envv3.map").read_bytes()
    m = demo.map()
    assert m.form == "teeworlds07" and m.game_layer is not None


def test_every_corpus_demo_replays(corpus):
    for path in sorted((corpus / "demos").glob("*.demo")):
        demo = twcodec.Demo.open(path)
        count = sum(1 for _ in demo.ticks())
        row = twcodec.scan_file(path, deep=True)
        assert count == row["demo"]["ticks"] > 0, path.name


def test_demo_errors():
    with pytest.raises(twcodec.Error) as error:
        twcodec.Demo.parse(b"TWDEMO\x00\x04short")
    assert str(error.value).startswith("the file ends inside the demo's header")
    with pytest.raises(twcodec.Error, match='not a demo: the file does not start with "TWDEMO'):
        twcodec.Demo.parse(b"XATA")
    with pytest.raises(twcodec.Error, match=r'not a demo: the file is a map \(a datafile\)'):
        twcodec.Demo.parse(b"DATA")


def test_decoded_objects_messages_chat_and_export(corpus):
    demo = twcodec.Demo.open(corpus / "demos" / DM1)
    # The chat of the session: the server log's `1:0:nameless tee: hello`.
    chat = demo.chat()
    assert [(c["kind"], c["client_id"], c["name"], c["text"]) for c in chat] == [
        ("chat", 0, "nameless tee", "hello")
    ]
    assert chat[0]["line"].endswith("] nameless tee: hello")
    # The same line among the decoded messages, by name and field.
    messages = demo.messages()
    said = [m for m in messages if m["message"]["kind"] == "sv_chat7"]
    assert len(said) == 1 and said[0]["message"]["message"] == "hello"
    # Snapshot objects by name: the player's character, in the first tick's snapshot.
    first = next(iter(demo.ticks()))
    objects = first.snapshot.objects("teeworlds07")
    names = {o["name"] for o in objects}
    assert "obj_character" in names and all(o.get("note") is None for o in objects)
    # Export rows: one per character per tick, with its position by name.
    rows = demo.export(["character"])
    assert rows and all(r["type"] == "obj_character" and "x" in r for r in rows)
    assert rows[0]["time"] == 0.0 and rows[0]["tick"] == first.tick
    with pytest.raises(twcodec.Error, match='no snapshot object is called "nope"'):
        demo.export(["nope"])
