"""Demos written: back byte for byte, cut, another map or none, recorded with DemoWriter."""

import pytest

import twcodec

TUTORIAL = "064_ddnet_join_chat_walk_disconnect__client.demo"
DM1 = "075_tw_dm1_join_chat_walk_disconnect__client.demo"


def ticks(demo):
    return [(t.tick, t.snapshot.items() if t.snapshot else None, t.messages) for t in demo.ticks()]


def test_every_corpus_demo_is_written_back(corpus, tmp_path):
    for path in sorted((corpus / "demos").glob("*.demo")):
        demo = twcodec.Demo.open(path)
        assert demo.to_bytes() == path.read_bytes(), path.name
    demo.save(tmp_path / "again.demo")
    assert (tmp_path / "again.demo").read_bytes() == path.read_bytes()


def test_a_cut_replays_as_the_demo_over_its_ticks(corpus):
    demo = twcodec.Demo.open(corpus / "demos" / TUTORIAL)
    assert demo.tick_range == (1432, 1910)
    assert demo.resolve("1s") == 1482
    assert demo.resolve("end") == 1910
    cut = demo.cut("1s", "0:06")
    assert cut.tick_range == (1482, 1732)
    assert cut.length == 5
    assert (cut.version, cut.net_version, cut.map_name) == (6, demo.net_version, "Tutorial")
    first = list(cut.ticks())[0]
    assert (first.tick, first.keyframe, first.update) == (1482, True, "full")
    expected = [t for t in ticks(demo) if 1482 <= t[0] <= 1732]
    assert ticks(cut) == expected
    # Ticks as ints; the first tick with a snapshot from there on.
    assert demo.cut(1433, 1500).tick_range == (1434, 1500)
    with pytest.raises(twcodec.Error, match="marker 1: the demo has 0 timeline markers"):
        demo.cut("m1")
    with pytest.raises(twcodec.Error, match="is not a point in a demo"):
        demo.cut("soon")


def test_another_map_or_none(corpus):
    demo = twcodec.Demo.open(corpus / "demos" / TUTORIAL)
    stripped = demo.strip_map()
    assert (stripped.map_size, stripped.map_crc, stripped.map_name) == (0, demo.map_crc, "Tutorial")
    assert ticks(stripped) == ticks(demo)
    tutorial = (corpus / "maps" / "ddnet_Tutorial.map").read_bytes()
    back = stripped.replace_map(tutorial)
    assert back.to_bytes() == demo.to_bytes()
    sample = twcodec.sample()
    other = demo.replace_map(sample, name="sample")
    assert (other.map_name, other.map_size, other.map_sha256_matches) == ("sample", len(sample), True)
    with pytest.raises(twcodec.Error, match="the new map does not read as a map"):
        demo.replace_map(b"not a map")


def test_demo_writer_records_a_replay_again(corpus):
    demo = twcodec.Demo.open(corpus / "demos" / DM1)
    writer = twcodec.DemoWriter(
        demo.map_bytes(), map_name=demo.map_name, net_version=demo.net_version, version=demo.version
    )
    for tick in demo.ticks():
        if tick.snapshot is None:
            writer.tick(tick.tick)
        else:
            writer.snapshot(tick.tick, tick.snapshot)
        for message in tick.messages:
            writer.message(message)
    first = demo.tick_range[0]
    writer.marker(first + 100)
    assert repr(writer).startswith("<twcodec.DemoWriter version 4, last tick ")
    again = writer.finish()
    assert repr(writer) == "<twcodec.DemoWriter finished>"
    assert ticks(again) == ticks(demo)
    assert (again.length, again.timeline_markers, again.map_crc_matches) == (demo.length, [first + 100], True)
    with pytest.raises(ValueError, match="the demo is finished"):
        writer.tick(5)


def test_demo_writer_refuses_what_readers_could_not_read():
    writer = twcodec.DemoWriter(twcodec.sample(), map_name="sample")
    with pytest.raises(twcodec.Error, match="a data chunk before the first tick marker"):
        writer.message(b"\x00\x00\x00\x00")
    writer.keyframe(100, twcodec.Snapshot([(0x4000, 1, [7])]))
    with pytest.raises(twcodec.Error, match="ticks never go back"):
        writer.tick(99)
    with pytest.raises(twcodec.Error, match="demo version 7"):
        twcodec.DemoWriter(version=7)
    demo = writer.finish()
    assert [t.snapshot.items() for t in demo.ticks()] == [[(0x4000, 1, [7])]]
