"""Demos drawn: one instant as an array or a PNG, frames one at a time; the frames of a range
are the instants `render` draws, and the CLI draws the same pixels."""

import subprocess

import numpy as np
import pytest

import twcodec

DM1 = "075_tw_dm1_join_chat_walk_disconnect__client.demo"


def test_an_instant_and_the_frames_around_it(corpus, tmp_path, cli):
    demo = twcodec.Demo.open(corpus / "demos" / DM1)
    data = corpus / "gamedata" / "teeworlds07"
    mapres = corpus / "mapres" / "teeworlds07"
    size = dict(width=160, height=90, data=data, mapres=mapres)
    frame = demo.render(600, **size)
    assert frame.shape == (90, 160, 4) and frame.dtype == np.uint8
    assert (frame[..., 3] == 255).all()
    png = demo.render(600, png=True, **size)
    assert png.startswith(b"\x89PNG")
    assert demo.render(600, path=tmp_path / "f.png", **size) is None
    assert (tmp_path / "f.png").read_bytes() == png

    # Ticks 600 to 620 at 10 a second: 600, 605, 610, 615, 620.
    frames = list(demo.frames(10, 600, 620, **size))
    assert [tick for tick, _ in frames] == [600.0, 605.0, 610.0, 615.0, 620.0]
    assert np.array_equal(frames[0][1], frame)
    assert np.array_equal(frames[4][1], demo.render(620, **size))
    # The player walks: the frames differ.
    assert not np.array_equal(frames[0][1], frames[4][1])

    # The command line draws the same pixels.
    raw = subprocess.run(
        [cli, "demo", "render", str(corpus / "demos" / DM1), "--raw", "--width", "160",
         "--height", "90", "--data", str(data), "--mapres", str(mapres), "--from", "600",
         "--to", "600"],
        check=True, capture_output=True,
    ).stdout
    assert raw == frame.tobytes()


def test_bad_options_raise(corpus):
    demo = twcodec.Demo.open(corpus / "demos" / DM1)
    with pytest.raises(twcodec.Error, match="frames a second"):
        demo.frames(0)
    with pytest.raises(twcodec.Error, match="nothing to draw at tick 99999"):
        demo.render(99999, width=16, height=9)
    with pytest.raises(twcodec.Error, match="pixels"):
        demo.render(600, width=0)
