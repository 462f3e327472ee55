"""One map, two threads: a call that finds the map in use by another thread's call (which
released the GIL) raises twcodec.BusyError, an Exception, at once, and leaves the map as it
was; never pyo3's PanicException (a BaseException), never a wait.

Deterministic without sleeps: the other thread saves (or renders) into a FIFO, so it sits
inside the call, holding the map, until this thread opens the FIFO's other end.
"""

import contextlib
import gc
import os
import threading
import time

import numpy as np
import pytest

import twcodec

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)"),
    # The sample's external images, drawn as placeholders without a mapres folder.
    pytest.mark.filterwarnings("ignore::twcodec.RenderWarning"),
]

# How long a test waits for the other thread before it fails rather than hang.
DEADLINE_S = 30.0


def flipped(tiles):
    """Different tiles of the same shape: every id changed."""
    new = tiles.copy()
    new[:, :, 0] = 255 - new[:, :, 0]
    return new


@contextlib.contextmanager
def held(m, tmp_path, how="save"):
    """Another thread inside `m.save` (or `m.render(path=...)`), blocked on a FIFO, holding
    the map for reading until the block ends; yields what the FIFO received when it does
    (filled in on exit)."""
    fifo = tmp_path / f"{how}.fifo"
    os.mkfifo(fifo)
    outcome = {}

    def run():
        try:
            if how == "save":
                m.save(fifo)
            else:
                m.render(width=64, path=fifo)
        except BaseException as e:  # noqa: BLE001 - reported to the test thread below
            outcome["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    # Until the other thread holds the map: a write with a wrong shape raises BusyError then,
    # and a ValueError (changing nothing) before; the map is locked before the shape is read.
    game = m.game_layer
    wrong = np.zeros((1, 1, 4), np.uint8)
    start = time.monotonic()
    while True:
        try:
            game.set_tiles(wrong)
        except twcodec.BusyError:
            break
        except ValueError:
            pass
        assert thread.is_alive(), f"the other thread ended: {outcome}"
        assert time.monotonic() - start < DEADLINE_S, "the other thread never held the map"
    received = {}
    try:
        yield received
    finally:
        # Opening the read end lets the other thread's open() return and its write end.
        with open(fifo, "rb") as f:
            received["bytes"] = f.read()
        thread.join(DEADLINE_S)
        assert not thread.is_alive()
        assert "error" not in outcome, outcome["error"]


@pytest.mark.parametrize("how", ["save", "render"])
def test_set_tiles_during_another_threads_save_raises_busy_error(tmp_path, how):
    m = twcodec.Map.sample()
    game = m.game_layer
    old = game.tiles().copy()
    new = flipped(old)
    gc.collect()
    with held(m, tmp_path, how) as received:
        with pytest.raises(twcodec.BusyError) as raised:
            game.set_tiles(new)
        error = raised.value
        assert isinstance(error, twcodec.Error) and isinstance(error, RuntimeError)
        assert (error.kind, error.offset, error.path) == ("busy", None, None)
        other = "Map.save" if how == "save" else "Map.render"
        assert str(error) == (
            f"Layer.set_tiles: the map is in use by another thread ({other}); try again when "
            "it is done, or share the map between threads under a threading.Lock"
        )
        # What `except Exception` catches (pyo3's PanicException it would not).
        try:
            game.set_tiles(new)
        except Exception as e:  # noqa: BLE001 - the point of the test
            caught = e
        assert isinstance(caught, twcodec.BusyError)
        with pytest.raises(twcodec.BusyError, match=r"^Map\.convert: the map is in use by another"):
            m.convert("teeworlds07")
        # Reading shares the map with the other thread's call.
        assert m.form == "ddnet" and len(m.layers) == 9 and m.game_layer.index == 2
        assert np.array_equal(game.tiles(structured=True)["id"], old[:, :, 0])
        assert m.to_bytes() == twcodec.sample()
        assert m.render(width=24).shape == (16, 24, 4)
        assert repr(m).startswith("<twcodec.Map ddnet: 2 groups")
        assert repr(game) == '<twcodec.Layer #2 game "Game">'
    # Nothing changed: the other thread wrote the map as it was, and the map still is so.
    if how == "save":
        assert received["bytes"] == twcodec.sample()
    else:
        assert received["bytes"].startswith(b"\x89PNG\r\n\x1a\n")
    assert m.form == "ddnet" and m.views == 0
    assert np.array_equal(game.tiles(), old)
    assert m.to_bytes() == twcodec.sample()
    # And the map is free again: the change that raised now goes in, and saves.
    game.set_tiles(new)
    m.save(tmp_path / "after.map")
    again = twcodec.Map.load(tmp_path / "after.map")
    assert np.array_equal(again.game_layer.tiles(), new)
    assert [layer.name for layer in again.layers] == [layer.name for layer in m.layers]


def test_views_during_another_threads_save(tmp_path):
    """A view made while another thread saves is a view like any other: it blocks changes
    (BufferError) from any thread until it is gone."""
    m = twcodec.Map.sample()
    game = m.game_layer
    with held(m, tmp_path):
        tiles = game.tiles()
        quads = m.layers[0].quads()
        assert m.views == 2
    old = tiles.copy()
    errors = []

    def change():
        for call in (lambda: game.set_tiles(flipped(old)), lambda: m.convert("teeworlds07")):
            try:
                call()
            except BaseException as e:  # noqa: BLE001 - checked below
                errors.append(e)

    thread = threading.Thread(target=change)
    thread.start()
    thread.join(DEADLINE_S)
    assert [type(e) for e in errors] == [BufferError, BufferError]
    assert "2 numpy array(s) still view" in str(errors[0])
    assert np.array_equal(tiles, old) and len(quads) > 0 and m.form == "ddnet"
    del tiles, quads
    gc.collect()
    assert m.views == 0
    game.set_tiles(flipped(old))
    assert np.array_equal(game.tiles(), flipped(old))


def test_calls_during_another_threads_convert_raise_busy_error(tmp_path):
    """Another thread converts the map back and forth, holding it alone each time; every call
    from this thread either runs or raises BusyError (the map locked before anything is read),
    until each has raised once; then the map is whole."""
    m = twcodec.Map.sample()
    m.convert("teeworlds07")
    reference = m.copy()
    game, image, envelope = m.game_layer, m.images[1], m.envelopes[1]
    new = flipped(game.tiles().copy())
    gc.collect()
    stop = threading.Event()
    errors, refused = [], []

    def convert():
        forms = ["ddnet", "teeworlds07"]
        try:
            while not stop.is_set():
                try:
                    m.convert(forms[0])
                    forms.reverse()
                except twcodec.BusyError as e:
                    # This thread's render, save, ... holds the map: the same rule both ways.
                    assert str(e).startswith("Map.convert: the map is in use by another thread (")
                    refused.append(e)
        except BaseException as e:  # noqa: BLE001 - checked below
            errors.append(e)

    calls = {
        "Map.form": lambda: m.form,
        "Map.layers": lambda: m.layers,
        "Map.to_dict": m.to_dict,
        "Map.to_bytes": m.to_bytes,
        "Map.save": lambda: m.save(tmp_path / "during.map"),
        "Map.render": lambda: m.render(width=24),
        "Map.copy": m.copy,
        "Layer.name": lambda: game.name,
        "Layer.set_tiles": lambda: game.set_tiles(new),
        "Image.rgba": lambda: image.rgba().copy(),
        "Envelope.eval": lambda: envelope.eval(100.0),
    }
    seen, wrote = set(), False
    thread = threading.Thread(target=convert)
    thread.start()
    start = time.monotonic()
    try:
        while seen != set(calls) and time.monotonic() - start < DEADLINE_S and not errors:
            for name, call in calls.items():
                try:
                    call()
                    wrote |= name == "Layer.set_tiles"
                except twcodec.BusyError as e:
                    assert str(e).startswith(f"{name}: the map is in use by another thread")
                    assert "(Map.convert)" in str(e)
                    seen.add(name)
                # Neither raises, whoever holds the map.
                assert repr(m).startswith("<twcodec.Map ")
                assert repr(game).startswith("<twcodec.Layer #2 ")
                assert m.views == 0
    finally:
        stop.set()
        thread.join(DEADLINE_S)
    assert errors == []
    assert seen == set(calls)
    # The map is whole: what this thread wrote is there, the rest as converted.
    m.convert("teeworlds07")
    if wrote:
        reference.game_layer.set_tiles(new)
    assert m.to_dict() == reference.to_dict()
    # Saved and read back, as the same map saved from one thread.
    m.save(tmp_path / "after.map")
    reference.save(tmp_path / "reference.map")
    assert (tmp_path / "after.map").read_bytes() == (tmp_path / "reference.map").read_bytes()


def test_a_replay_shared_by_two_threads_skips_no_tick(corpus):
    """Two threads take ticks from one replay: a next() during the other's raises BusyError
    and takes nothing, so between them they see every tick once."""
    path = corpus / "demos" / "075_tw_dm1_join_chat_walk_disconnect__client.demo"
    expected = [t.tick for t in twcodec.Demo.open(path).ticks()]
    replay = twcodec.Demo.open(path).ticks()
    ticks, busy_count, errors = [], [0], []
    lock = threading.Lock()

    def take():
        try:
            while True:
                try:
                    tick = next(replay)
                except twcodec.BusyError as e:
                    assert str(e).startswith("Replay.__next__: the replay is in use by another")
                    with lock:
                        busy_count[0] += 1
                    continue
                except StopIteration:
                    return
                with lock:
                    ticks.append(tick.tick)
        except BaseException as e:  # noqa: BLE001 - checked below
            errors.append(e)

    threads = [threading.Thread(target=take) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE_S)
    assert errors == []
    assert sorted(ticks) == sorted(expected) and len(ticks) == len(expected)
