"""The tool layer from Python, in the command line's words: `Map.diff` (`twcodec diff`),
`Map.unpack` and `Map.pack` (`twcodec unpack`, `pack`), `Map.embed` (`twcodec embed`),
`twcodec.Renderer` and the render options (`twcodec render`), and errors that name the option."""

import json
import os
import subprocess
import warnings

import numpy as np
import pytest

import twcodec

# The sample map draws its external image as a placeholder without a mapres folder.
pytestmark = pytest.mark.filterwarnings("ignore::twcodec.RenderWarning")


def painted(m):
    """A copy of `m` with tile (2, 1) of layer "Ground" set to 9 and a 5 x 3 rectangle of it
    (x 4..=8, y 2..=4) set to 17."""
    new = m.copy()
    ground = next(layer for layer in new.layers if layer.name == "Ground")
    tiles = ground.tiles().copy()
    tiles[1, 2, 0] = 9
    tiles[2:5, 4:9, 0] = 17
    ground.set_tiles(tiles)
    return new


# --- diff -------------------------------------------------------------------------------


def test_diff_of_two_versions_of_the_sample():
    old = twcodec.Map.sample()
    same = old.diff(old.copy())
    assert not same and len(same) == 0 and list(same) == []
    assert same.text() == "" and same.tiles == 0 and same.counts == {}
    assert repr(same) == "<twcodec.Diff: the same map>"
    assert not old.diff(old)

    d = old.diff(painted(old))
    assert isinstance(d, twcodec.Diff) and d
    assert d.places == ['group #1 "Game" / layer #3 "Ground"']
    assert d.text() == (
        'group #1 "Game" / layer #3 "Ground":\n'
        "  x 2, y 1: 0 -> 9\n"
        "  x 4..=8, y 2..=4: 0 -> 17\n"
    )
    assert len(d) == 2 and d.counts == {"tiles": 2} and d.tiles == 1 + 15
    changes = list(d)
    assert changes == d.changes
    assert changes[0] == {
        "change": "tiles",
        "place": 'group #1 "Game" / layer #3 "Ground"',
        "x": [2, 2],
        "y": [1, 1],
        "old": "0",
        "new": "9",
    }
    assert json.loads(d.to_json()) == {"sections": d.sections}
    assert d.to_json().endswith("}\n")
    assert repr(d) == "<twcodec.Diff: 2 changes in 1 place>"
    # The other way round: the same places, old and new swapped.
    back = painted(old).diff(old)
    assert [c["old"] for c in back] == ["9", "17"]


def test_diff_of_fields_and_a_removed_layer():
    old = twcodec.Map.sample()
    new = old.copy()
    new.set_info(author="someone else")
    new.remove_layer(next(layer for layer in new.layers if layer.name == "Tune"))
    d = old.diff(new)
    assert d.counts.get("field", 0) >= 1 and d.counts.get("removed", 0) == 1
    assert any(c["change"] == "field" and c["field"] == "author" for c in d)
    assert any(c["change"] == "removed" for c in d)
    assert d.tiles == 0


def test_diff_takes_a_file_or_an_unpacked_directory(tmp_path):
    old = twcodec.Map.sample()
    new = painted(old)
    new.save(tmp_path / "new.map")
    new.unpack(tmp_path / "new")
    expected = old.diff(new).text()
    assert old.diff(tmp_path / "new.map").text() == expected
    assert old.diff(str(tmp_path / "new")).text() == expected
    with pytest.raises(FileNotFoundError):
        old.diff(tmp_path / "missing.map")
    with pytest.raises(TypeError, match="other is a twcodec.Map or the path"):
        old.diff(3)


def test_diff_prints_what_the_cli_prints(cli, tmp_path):
    old = twcodec.Map.sample()
    new = painted(old)
    new.set_info(author="someone else")
    old.save(tmp_path / "old.map")
    new.save(tmp_path / "new.map")
    d = old.diff(new)
    for args, expected in [([], d.text()), (["--format", "json"], d.to_json())]:
        run = subprocess.run(
            [cli, "diff", tmp_path / "old.map", tmp_path / "new.map", *args],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 1, run.stderr
        assert run.stdout == expected


def test_diff_of_a_corpus_map(corpus):
    m = twcodec.Map.load(corpus / "maps" / "ddnet_coverage.map")
    assert not m.diff(m.copy())
    assert not m.diff(twcodec.Map.parse(m.to_bytes(level=9)))
    new = m.copy()
    game = new.game_layer
    tiles = game.tiles().copy()
    tiles[0:2, 0:3, 0] = np.where(tiles[0:2, 0:3, 0] == 1, 0, 1)
    game.set_tiles(tiles)
    d = m.diff(new)
    assert d.tiles == 6 and d.counts == {"tiles": len(d)}
    assert all(c["place"].endswith("(game)") or "Game" in c["place"] for c in d)


# --- unpack and pack ----------------------------------------------------------------------


def test_unpack_and_pack_give_the_same_bytes(tmp_path):
    m = twcodec.Map.sample()
    written = m.unpack(tmp_path / "sample")
    assert written == {"items": 24, "data": 24, "raw": 0}
    assert (tmp_path / "sample" / ".twcodec" / "layout.toml").is_file()
    packed = twcodec.Map.pack(tmp_path / "sample")
    assert isinstance(packed, twcodec.Map)
    assert packed.to_bytes() == m.to_bytes()
    assert not m.diff(packed)
    # As the CLI: a directory that is not empty is refused.
    with pytest.raises(twcodec.Error, match="is not empty") as error:
        m.unpack(tmp_path / "sample")
    assert error.value.kind == "invalid_options"


def test_an_edit_in_the_directory_shows_in_the_map(tmp_path):
    m = twcodec.Map.sample()
    m.unpack(tmp_path / "d")
    # The info item names its author's text file: `author = 0 # data/000.txt`.
    info = (tmp_path / "d" / "items" / "info-00.toml").read_text()
    line = next(line for line in info.splitlines() if line.startswith("author"))
    author = tmp_path / "d" / line.split("# ")[1]
    assert author.read_text() == m.info["author"] + "\n"
    author.write_text("edited\n")
    packed = twcodec.Map.pack(tmp_path / "d", decode="lazy")
    assert packed.info["author"] == "edited"
    assert [c["field"] for c in m.diff(packed)] == ["author"]


def test_pack_notes_deletions_and_names_bad_files(tmp_path):
    m = twcodec.Map.sample()
    m.unpack(tmp_path / "d")
    (tmp_path / "d" / "items" / "envelope-01-sway.toml").unlink()
    with pytest.warns(twcodec.PackWarning, match="which was deleted"):
        packed = twcodec.Map.pack(tmp_path / "d")
    assert len(packed.envelopes) == len(m.envelopes) - 1
    (tmp_path / "d" / "groups" / "01-Game" / "zz.toml").write_text("garbage = ")
    with pytest.raises(twcodec.Error) as error:
        twcodec.Map.pack(tmp_path / "d")
    assert "groups/01-Game/zz.toml:1:" in str(error.value)
    assert error.value.path == str(tmp_path / "d")
    with pytest.raises(FileNotFoundError):
        twcodec.Map.pack(tmp_path / "missing")


def test_corpus_maps_unpack_and_pack_byte_for_byte(corpus, tmp_path):
    names = ["ddnet_coverage.map", "tw06_stock_dm1.map", "ddnet_theme_winter_night.map"]
    for name in names:
        m = twcodec.Map.load(corpus / "maps" / name)
        m.unpack(tmp_path / name)
        assert twcodec.Map.pack(tmp_path / name).to_bytes() == m.to_bytes(), name


# --- embed --------------------------------------------------------------------------------


def test_embed_from_a_mapres_folder(tmp_path, monkeypatch):
    m = twcodec.Map.sample()
    # A 64 x 64 picture (a tileset's sides are multiples of 16), as a PNG file.
    pixels = np.zeros((64, 64, 4), np.uint8)
    pixels[:, :32] = (200, 40, 40, 255)
    checker = twcodec.Map.new().add_embedded_image("grass", pixels)
    (tmp_path / "grass_main.png").write_bytes(checker.png())
    report = m.embed(tmp_path)
    assert report["left_external"] == [] and report["warnings"] == []
    [embedded] = report["embedded"]
    assert embedded["index"] == 0 and embedded["name"] == "grass_main"
    assert embedded["file"] == str(tmp_path / "grass_main.png")
    assert (embedded["width"], embedded["height"]) == (checker.width, checker.height)
    assert not m.images[0].external
    assert np.array_equal(m.images[0].rgba(), pixels)
    # $TWCODEC_MAPRES, as the CLI's default.
    again = twcodec.Map.sample()
    monkeypatch.setenv("TWCODEC_MAPRES", str(tmp_path))
    assert len(again.embed()["embedded"]) == 1


def test_embed_leaves_missing_pictures_external_or_fails_strictly(tmp_path, monkeypatch):
    m = twcodec.Map.sample()
    report = m.embed(tmp_path)
    [left] = report["left_external"]
    assert left["index"] == 0 and left["name"] == "grass_main" and "grass_main.png" in left["reason"]
    with pytest.raises(twcodec.Error, match="1 of 1 external images stay external"):
        m.embed(tmp_path, strict=True)
    assert m.images[0].external  # nothing changed
    monkeypatch.delenv("TWCODEC_MAPRES", raising=False)
    with pytest.raises(twcodec.Error, match="no folder of pictures") as error:
        m.embed()
    assert error.value.kind == "invalid_options"


# --- Renderer -----------------------------------------------------------------------------


def test_a_renderer_draws_what_map_render_draws():
    m = twcodec.Map.sample()
    renderer = twcodec.Renderer()
    for options in [
        dict(width=96),
        dict(camera=(6.0, 4.0, 0.5), size=(80, 45), time=0.25),
        dict(scale=4, entities=True),
        dict(width=64, entities=40, layers=["Ground", 2], background=(0, 0, 0, 0)),
    ]:
        assert np.array_equal(renderer.render(m, **options), m.render(**options)), options
    assert renderer.render(m, width=48, png=True) == m.render(width=48, png=True)


def test_a_renderer_tells_embedded_pictures_apart(tmp_path):
    """Two maps whose image 0 is embedded from two pictures of one size: each drawn with its
    own, by one renderer, and again after the renderer kept both."""
    maps = []
    for color in [(200, 40, 40, 255), (40, 40, 200, 255)]:
        folder = tmp_path / str(color[0])
        folder.mkdir()
        pixels = np.zeros((64, 64, 4), np.uint8)
        pixels[:, :] = color
        picture = twcodec.Map.new().add_embedded_image("grass", pixels)
        (folder / "grass_main.png").write_bytes(picture.png())
        m = twcodec.Map.sample()
        m.embed(folder)
        maps.append(m)
    renderer = twcodec.Renderer()
    # Layer "Ground" draws image 0 under the color envelope "pulse", opaque at 0.25 s.
    expected = [m.render(width=96, time=0.25) for m in maps]
    assert not np.array_equal(*expected)
    for _ in range(2):
        for m, picture in zip(maps, expected):
            assert np.array_equal(renderer.render(m, width=96, time=0.25), picture)
    assert renderer.cached >= 3  # both pictures and the sample's checker


def test_a_renderer_keeps_the_pictures_it_reads(corpus):
    mapres = corpus / "mapres" / "ddnet"
    tileset = corpus / "mapres" / "entities" / "ddnet_comfort.png"
    m = twcodec.Map.load(corpus / "maps" / "ddnet_coverage.map")
    renderer = twcodec.Renderer(mapres=mapres, entities_tileset=tileset)
    assert (renderer.mapres, renderer.entities_tileset) == (str(mapres), str(tileset))
    assert renderer.cached == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every picture is there
        first = renderer.render(m, width=200, entities=50)
        kept = renderer.cached
        assert kept >= 2  # the map's external images and the entities tileset
        assert np.array_equal(renderer.render(m, width=200, entities=50), first)
        assert renderer.cached == kept
        expected = m.render(width=200, entities=50, mapres=mapres, entities_tileset=tileset)
    assert np.array_equal(first, expected)
    renderer.clear()
    assert renderer.cached == 0
    assert "pictures kept" in repr(renderer)


def test_render_time_in_seconds_and_entities_as_the_cli():
    m = twcodec.Map.sample()
    assert np.array_equal(m.render(width=64, time=0.75), m.render(width=64, time_ms=750))
    assert np.array_equal(m.render(width=64, entities=True), m.render(width=64, entities=100))
    assert np.array_equal(m.render(width=64, entities=False), m.render(width=64))


# --- errors that name the option -----------------------------------------------------------


@pytest.mark.parametrize(
    "options, error, message",
    [
        (dict(camera=(10, 10)), twcodec.Error, r"camera is \(x, y, zoom\).*\(10, 10\) gives x, y: zoom is missing"),
        (dict(camera=(10,)), twcodec.Error, r"camera is \(x, y, zoom\).*y and zoom are missing"),
        (dict(camera=(1, 2, 3, 4)), twcodec.Error, r"camera is \(x, y, zoom\).*4 values, 1 too many"),
        (dict(camera=(1, 2, 0)), twcodec.Error, r"camera is .*its zoom is 0, not a positive number"),
        (dict(camera="10,10"), TypeError, r"camera is \(x, y, zoom\).*a tuple of 3 numbers, not str"),
        (dict(camera=(1, "a", 1)), TypeError, r"camera is .*its y is a number, not str"),
        (dict(size=(0, 5)), twcodec.Error, r"size is \(width, height\).*its width is 0"),
        (dict(size=(5,)), twcodec.Error, r"size is \(width, height\).*height is missing"),
        (dict(size=(5, 2.5)), TypeError, r"size is .*its height is an int, not float"),
        (dict(width=0), twcodec.Error, r"width is the picture's width in pixels.*not 0"),
        (dict(width="wide"), TypeError, r"width is the picture's width in pixels.*not str"),
        (dict(scale=-2), twcodec.Error, r"scale is pixels per tile.*not -2"),
        (dict(time=1, time_ms=1000), twcodec.Error, r"give time \(in seconds.*or time_ms.*not both"),
        (dict(time="soon"), TypeError, r"time is when envelopes are drawn, in seconds"),
        (dict(time_ms=float("nan")), twcodec.Error, r"time_ms is when envelopes are drawn.*not NaN"),
        (dict(entities=101), twcodec.Error, r"entities is True .* 0 to 100 .*not 101"),
        (dict(entities="all"), TypeError, r"entities is True .*not str"),
        (dict(background=(1, 2, 3)), twcodec.Error, r"background is \(r, g, b, a\).*a is missing"),
        (dict(background=(1, 2, 3, 256)), twcodec.Error, r"background is .*its a is 256"),
        (dict(width=10, size=(10, 10)), twcodec.Error, r"give at most one of width, scale and size"),
        (dict(layers=[True]), twcodec.Error, r"layers are given by index"),
    ],
)
def test_render_errors_name_the_option(options, error, message):
    m = twcodec.Map.sample()
    for render in (m.render, lambda **o: twcodec.Renderer().render(m, **o)):
        with pytest.raises(error, match=message) as raised:
            render(**options)
        if error is twcodec.Error:
            assert raised.value.kind == "invalid_options"


def test_renderer_render_takes_map_renders_keywords():
    import inspect

    def keywords(f):
        return [p.name for p in inspect.signature(f).parameters.values() if p.kind is p.KEYWORD_ONLY]

    assert keywords(twcodec.Renderer.render) == keywords(twcodec.Map.render)
    assert "time" in keywords(twcodec.Map.render)
