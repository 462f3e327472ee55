"""Whole-map edits through the bindings: transform, reframe, crop, shift, scale_time."""

import numpy as np
import pytest

import twcodec


def test_mirror_moves_tiles_and_twice_is_the_map():
    m = twcodec.Map.sample()
    game = m.game_layer.tiles().copy()
    m.transform(mirror=True)
    mirrored = m.game_layer.tiles().copy()  # a view would keep the map from changing
    # Columns reversed; the index byte of every tile follows its cell.
    assert np.array_equal(mirrored[:, :, 0], game[:, ::-1, 0])
    m.transform(mirror=True)
    assert np.array_equal(m.game_layer.tiles(), game)
    saved = twcodec.Map.parse(m.to_bytes())
    assert np.array_equal(saved.game_layer.tiles(), game)


def test_rotation_swaps_the_size_and_four_turns_give_it_back():
    m = twcodec.Map.sample()
    game = m.game_layer.tiles().copy()
    height, width = game.shape[:2]
    m.transform(rotate=90)
    assert m.game_layer.tiles().shape[:2] == (width, height)
    # Clockwise: the old bottom-left tile is now at the top left.
    assert m.game_layer.tiles()[0, 0, 0] == game[height - 1, 0, 0]
    for _ in range(3):
        m.transform(rotate=90)
    assert np.array_equal(m.game_layer.tiles(), game)
    m.transform(mirror=True, flip=True, rotate=180)
    assert np.array_equal(m.game_layer.tiles(), game)


def test_bad_arguments_raise_and_change_nothing():
    m = twcodec.Map.sample()
    before = m.to_bytes()
    with pytest.raises(twcodec.Error, match="rotate is 0, 90, 180 or 270 degrees, not 45") as error:
        m.transform(rotate=45)
    assert error.value.kind == "invalid_options"
    with pytest.raises(twcodec.Error, match="DDNet needs at least 2x2") as error:
        m.reframe(right=-11)
    assert error.value.kind == "invalid_edit"
    with pytest.raises(twcodec.Error, match=r"the rectangle 4x4 at \(10, 0\) is not inside group #1's 12x8 tiles"):
        m.crop(10, 0, 4, 4)
    for factor in [0.0, -2.0, float("nan")]:
        with pytest.raises(twcodec.Error, match="a time factor must be a finite number above 0"):
            m.scale_time(factor)
    with pytest.raises(twcodec.Error, match="group 9: the map has 2 groups"):
        m.shift(1, 0, group=9)
    assert m.to_bytes() == before


def test_reframe_crop_and_shift():
    m = twcodec.Map.sample()
    game = m.game_layer.tiles().copy()
    m.reframe(2, 1, 3, 0)
    extended = m.game_layer.tiles().copy()
    assert extended.shape[:2] == (game.shape[0] + 1, game.shape[1] + 5)
    assert np.array_equal(extended[1:, 2 : 2 + game.shape[1]], game)
    assert not extended[0].any(), "added game tiles are air"
    m.reframe(-2, -1, -3, 0)
    assert np.array_equal(m.game_layer.tiles(), game)
    m.crop(1, 1, 4, 3)
    assert np.array_equal(m.game_layer.tiles(), game[1:4, 1:5])
    m.shift(1, 0)
    assert np.array_equal(m.game_layer.tiles()[:, 1:], game[1:4, 1:4])


def test_scale_time_and_back():
    m = twcodec.Map.sample()
    sway = [p["time"] for p in m.envelopes[1].points]
    m.scale_time(2)
    assert [p["time"] for p in m.envelopes[1].points] == [2 * t for t in sway]
    m.scale_time(0.5)
    assert [p["time"] for p in m.envelopes[1].points] == sway
