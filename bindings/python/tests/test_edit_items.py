"""Editing a map's items from Python: envelopes with their points, sounds and sources, images
from pixels or PNG, and moving groups, layers, images, envelopes and sounds. Each change is
saved and loaded again strictly; moves renumber every reference; handles of a kind that moved
raise; bad input raises `twcodec.Error` naming the field and changes nothing."""

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import twcodec
from conftest import _missing


def reread(m: twcodec.Map) -> twcodec.Map:
    read = twcodec.Map.parse(m.to_bytes(), strict=True)
    assert read.problems == []
    return read


def png(pixels: np.ndarray) -> bytes:
    """A PNG file of uint8 pixels, (height, width, 3) RGB or (height, width, 4) RGBA."""
    height, width, channels = pixels.shape
    color_type = {3: 2, 4: 6}[channels]

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    rows = b"".join(b"\0" + pixels[y].tobytes() for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def ogg_crc(page: bytes) -> int:
    """Ogg's CRC-32 (polynomial 0x04c11db7, not reflected, from 0)."""
    crc = 0
    for byte in page:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
            crc &= 0xFFFFFFFF
    return crc


def ogg_page(header_type: int, sequence: int, packets: list) -> bytes:
    page = bytearray(b"OggS\0" + bytes([header_type]))
    page += struct.pack("<qII", 0, 7, sequence) + b"\0\0\0\0"
    page += bytes([len(packets)]) + bytes(len(p) for p in packets)
    for packet in packets:
        page += packet
    page[22:26] = struct.pack("<I", ogg_crc(bytes(page)))
    return bytes(page)


def opus() -> bytes:
    """A small well-formed Ogg Opus file: the ID header, the comment header, one packet."""
    head = b"OpusHead\x01\x02\x38\x01\x80\xbb\0\0\0\0\0"
    return (
        ogg_page(0x02, 0, [head])
        + ogg_page(0, 1, [b"OpusTags\x04\0\0\0test\0\0\0\0"])
        + ogg_page(0x04, 2, [bytes([0xFC, 0xFF, 0xFE])])
    )


def one_quad(layer: twcodec.Layer, **fields) -> np.ndarray:
    """One quad record (no envelopes unless given) of the layer's quad dtype."""
    quads = np.zeros(1, dtype=layer.quads().dtype)
    quads["position_envelope"] = -1
    quads["color_envelope"] = -1
    quads["colors"] = 255
    quads["points"] = [[0, 0], [1024 * 32, 0], [0, 1024 * 32], [1024 * 32, 1024 * 32], [0, 0]]
    for name, value in fields.items():
        quads[name] = value
    return quads


FADE = [(0, (1024, 1024, 1024, 1024)), (1000, (1024, 0, 0, 512), "smooth"), (2000, (0, 0, 0, 0), 1)]


def test_an_envelope_on_a_layer_and_a_quad_reads_back(tmp_path: Path) -> None:
    m = twcodec.Map.new(20, 10)
    fade = m.add_envelope("color", "fade", FADE, synchronized=True)
    assert (fade.kind, fade.name, fade.synchronized, fade.channels) == ("color", "fade", True, 4)
    group = m.add_group("Back")
    m.add_layer(group, "tiles", "Sky")
    clouds = m.add_layer(group, "quads", "Clouds")
    # Adding a layer makes older layer handles stale (get them from the map again).
    sky = m.layers[1]
    sky.set_color_envelope(fade, offset=250)
    clouds.set_quads(one_quad(clouds, color_envelope=fade.index, color_envelope_offset=40))
    path = tmp_path / "fade.map"
    m.save(path)
    read = twcodec.Map.load(path, strict=True)
    assert read.problems == []
    env = read.envelopes[0]
    assert [(p["time"], p["curve_type"], p["values"]) for p in env.points] == [
        (0, 1, [1024, 1024, 1024, 1024]),
        (1000, 4, [1024, 0, 0, 512]),
        (2000, 1, [0, 0, 0, 0]),
    ]
    assert (env.name, env.synchronized) == ("fade", True)
    assert env.eval(500)[1] == pytest.approx(0.5)
    layers = {l.name: l for l in read.layers}
    assert layers["Sky"].color_envelope.index == 0
    assert layers["Sky"].color_envelope_offset == 250
    quad = layers["Clouds"].quads()[0]
    assert (quad["color_envelope"], quad["color_envelope_offset"]) == (0, 40)
    # None removes it.
    sky.set_color_envelope(None)
    assert sky.color_envelope is None and sky.color_envelope_offset == 0


def test_points_from_dicts_and_tuples_of_each_kind() -> None:
    m = twcodec.Map.new()
    pos = m.add_envelope("position", "orbit", [(0, (0, 0, 0)), {"time": 500, "values": [1024, 0, 360 * 1024]}])
    vol = m.add_envelope("sound", points=[(0, [0], "step"), (100, [1024])])
    assert [p["values"] for p in pos.points] == [[0, 0, 0, 0], [1024, 0, 360 * 1024, 0]]
    assert [p["curve_type"] for p in vol.points] == [0, 1]
    assert vol.name == "" and vol.synchronized is False
    pos.name = "spin"
    pos.synchronized = True
    read = reread(m)
    assert (read.envelopes[0].name, read.envelopes[0].synchronized) == ("spin", True)
    # Set back what `points` gives: nothing changes.
    pos.set_points(pos.points, pos.bezier)
    assert reread(m).envelopes[0].points == read.envelopes[0].points


def test_points_from_a_structured_array() -> None:
    m = twcodec.Map.new()
    dtype = np.dtype([("time", "<i4"), ("curve_type", "<i4"), ("values", "<i4", (4,))])
    points = np.zeros(3, dtype)
    points["time"] = [0, 250, 900]
    points["curve_type"] = [0, 3, 1]
    points["values"][:, 3] = [0, 1024, 512]
    env = m.add_envelope("color", "table", points)
    assert [(p["time"], p["curve_type"], p["values"][3]) for p in env.points] == [
        (0, 0, 0),
        (250, 3, 1024),
        (900, 1, 512),
    ]
    # And back: the points as a structured array, changed, set again.
    table = np.array([(p["time"], p["curve_type"], p["values"]) for p in env.points], dtype)
    table["time"] *= 2
    env.set_points(table)
    assert [p["time"] for p in reread(m).envelopes[0].points] == [0, 500, 1800]


def test_bezier_points_with_tangents() -> None:
    m = twcodec.Map.new()
    env = m.add_envelope("position", "curve")
    tangents = [
        {"out_tangent_dx": [100, 100, 0], "out_tangent_dy": [2048, 0, 0]},
        {"in_tangent_dx": [-100, -100, 0]},
    ]
    env.set_points([(0, (0, 0, 0), "bezier"), (1000, (4096, 0, 0))], tangents)
    read = reread(m).envelopes[0]
    assert read.points[0]["curve_type"] == 5
    assert read.bezier[0]["out_tangent_dy"] == [2048, 0, 0, 0]
    assert read.bezier[1]["in_tangent_dx"] == [-100, -100, 0, 0]
    assert read.eval(250)[0] > 1.0


def test_moves_and_removals_renumber_references_and_stale_handles_raise() -> None:
    m = twcodec.Map.new()
    a = m.add_envelope("color", "a", FADE)
    b = m.add_envelope("color", "b", FADE)
    group = m.add_group("Things")
    layer = m.add_layer(group, "quads")
    layer.set_quads(one_quad(layer, color_envelope=b.index))
    moved = m.move_envelope(b, 0)
    assert moved.index == 0 and moved.name == "b"
    assert layer.quads()[0]["color_envelope"] == 0
    for stale in (a, b):
        with pytest.raises(IndexError, match="envelope #. is gone"):
            stale.name
    # The quad's envelope is still "b" after the other one goes, and after it goes: none.
    first, second = m.envelopes
    m.remove_envelope(second)
    assert layer.quads()[0]["color_envelope"] == 0
    m.remove_envelope(m.envelopes[0])
    assert layer.quads()[0]["color_envelope"] == -1
    assert m.envelopes == []
    # Inserting at the front shifts every reference up.
    c = m.add_envelope("color", "c", FADE)
    layer.set_quads(one_quad(layer, color_envelope=c.index))
    d = m.add_envelope("color", "d", FADE, at=0)
    assert d.index == 0 and [e.name for e in m.envelopes] == ["d", "c"]
    assert layer.quads()[0]["color_envelope"] == 1
    with pytest.raises(IndexError):
        c.name
    # Layer handles survive envelope moves.
    assert layer.kind == "quads"
    reread(m)


def test_moving_groups_layers_images_and_sounds() -> None:
    m = twcodec.Map.new()
    back = m.add_group("Back")
    front = m.add_group("Front")
    tiles = m.add_layer(back, "tiles", "Sky")
    grass = m.add_external_image("grass_main")
    own = m.add_embedded_image("own", np.full((16, 16, 4), 200, np.uint8))
    tiles.image = own
    moved = m.move_image(own, 0)
    assert [i.name for i in m.images] == ["own", "grass_main"]
    assert moved.index == 0 and m.layers[1].image.name == "own"
    with pytest.raises(IndexError, match="image #0 is gone"):
        grass.name
    sky = m.layers[1]
    new_group = m.move_group(m.groups[2], 0)
    assert [g.name for g in m.groups] == ["Front", "Game", "Back"]
    assert new_group.name == "Front"
    with pytest.raises(IndexError):
        back.name
    with pytest.raises(IndexError):
        sky.name
    sky = next(l for l in m.layers if l.name == "Sky")
    front, back = m.groups[0], m.groups[2]
    sky = m.move_layer(sky, front)
    assert sky.group == 0 and sky.image.name == "own"
    assert [l.name for l in m.groups[0].layers] == ["Sky"]
    # Sounds: a sounds layer keeps playing its sound through a move and a removal of another.
    one = m.add_sound("one", opus())
    two = m.add_sound("two", opus())
    sounds = m.add_layer(m.groups[0], "sounds")
    sounds.sound = two
    assert sounds.sound.name == "two"
    m.move_sound(two, 0)
    assert [s.name for s in m.sounds] == ["two", "one"]
    assert m.layers[sounds.index].sound.name == "two"
    with pytest.raises(IndexError):
        one.name
    # A new name and new data keep the sound's place.
    m.sounds[0].name = "two!"
    m.sounds[0].set_data(opus() + b"")
    assert m.layers[sounds.index].sound.name == "two!"
    m.remove_sound(m.sounds[1])
    assert m.layers[sounds.index].sound.name == "two!"
    m.remove_sound(m.sounds[0])
    assert m.layers[sounds.index].sound is None
    reread(m)


def test_quads_round_trip_field_by_field() -> None:
    m = twcodec.Map.sample()
    layer = next(l for l in m.layers if l.kind == "quads" and len(l.quads()) > 0)
    q = layer.quads().copy()
    q["colors"][0] = [[10, 20, 30, 255]] * 4
    q["position_envelope_offset"][0] = 123
    layer.set_quads(q)
    read = reread(m).layers[layer.index].quads()
    assert read["colors"][0].tolist() == [[10, 20, 30, 255]] * 4
    assert read["position_envelope_offset"][0] == 123


def test_sources_round_trip_and_defaults() -> None:
    m = twcodec.Map.new()
    vol = m.add_envelope("sound", "vol", [(0, [1024])])
    layer = m.add_layer(m.groups[0], "sounds")
    layer.set_sources([{"position": (10 * 1024, 5 * 1024), "sound_envelope": vol.index}, {"looping": False}])
    sources = layer.sources()
    assert sources[0]["position"] == {"x": 10 * 1024, "y": 5 * 1024}
    assert sources[0]["sound_envelope"] == 0 and sources[0]["position_envelope"] == -1
    assert (sources[1]["looping"], sources[1]["falloff"], sources[1]["shape"]["kind"]) == (0, 80, 1)
    sources[1]["falloff"] = 200
    layer.set_sources(sources)
    assert reread(m).layers[layer.index].sources() == layer.sources()
    assert layer.sources()[1]["falloff"] == 200
    # Records with the same field names, changed and set back.
    records = layer.sources(structured=True)
    assert records["position"]["x"][0] == 10 * 1024 and records["shape"]["kind"][1] == 1
    records["falloff"] = 7
    records["shape"]["value1"][0] = 640
    layer.set_sources(records)
    assert [s["falloff"] for s in layer.sources()] == [7, 7]
    assert layer.sources()[0]["shape"]["value1"] == 640
    # An int32 array of (n, 13) in the file's order works too.
    ints = np.zeros((1, 13), np.int32)
    ints[0, 6] = ints[0, 8] = -1
    layer.set_sources(ints)
    assert len(layer.sources()) == 1


def test_images_from_png_bytes_and_paths(tmp_path: Path) -> None:
    m = twcodec.Map.new()
    rgba = np.zeros((16, 32, 4), np.uint8)
    rgba[..., 0] = 255
    rgba[..., 3] = 128
    red = m.add_embedded_image("red", png(rgba))
    assert (red.width, red.height) == (32, 16)
    assert (red.rgba() == rgba).all()
    rgb = np.full((8, 8, 3), 40, np.uint8)
    path = tmp_path / "grey.png"
    path.write_bytes(png(rgb))
    grey = m.add_embedded_image("grey", path)
    assert grey.rgba()[0, 0].tolist() == [40, 40, 40, 255]
    grey2 = m.add_embedded_image("grey2", str(path))
    assert grey2.width == 8
    # New pixels and a new name; an external image becomes embedded.
    ext = m.add_external_image("grass_main")
    ext.set_pixels(np.full((16, 16, 4), 9, np.uint8))
    ext.name = "painted"
    red.set_pixels(png(rgb))
    read = reread(m)
    assert [i.name for i in read.images] == ["red", "grey", "grey2", "painted"]
    assert not read.images[3].external and read.images[3].rgba()[0, 0].tolist() == [9] * 4
    assert read.images[0].rgba()[0, 0].tolist() == [40, 40, 40, 255]


def test_bad_input_names_the_field_and_changes_nothing() -> None:
    m = twcodec.Map.new()
    env = m.add_envelope("color", "fade", FADE)
    pos = m.add_envelope("position", "p")
    group = m.add_group("G")
    for kind in ("tiles", "quads", "sounds"):
        m.add_layer(group, kind)
    tiles, quads, sounds = m.layers[1:4]
    image = m.add_external_image("grass_main")
    m.add_sound("hum", opus())
    group, group_name = m.groups[1], m.groups[1].name
    before = m.to_bytes()
    cases = [
        (lambda: env.set_points([(10, [0] * 4), (5, [0] * 4)]), "point #1: field `time` = 5 ms is before"),
        (lambda: env.set_points([(-1, [0] * 4)]), "point #0: field `time` = -1 ms is negative"),
        (lambda: env.set_points([(0, [0, 0])]), "point #0: field `values` has 2 values"),
        (lambda: env.set_points([(0, [0] * 4, "wobbly")]), "point #0: field `curve_type` = \"wobbly\""),
        (lambda: env.set_points([(0, [0] * 4, 9)]), "point #0: field `curve_type` = 9"),
        (lambda: env.set_points([(0.5, [0] * 4)]), "point #0: field `time` = 0.5"),
        (lambda: env.set_points([{"time": 0}]), "point #0: field `values` is missing"),
        (lambda: env.set_points([(0, [0] * 4)], [{}, {}]), "2 tangent sets for 1 points"),
        (lambda: m.add_envelope("volume"), "field `kind` is 'position', 'color' or 'sound'"),
        (lambda: m.add_envelope("color", "x" * 32), "envelope name"),
        (lambda: m.add_envelope("color", at=5), "field `at` = 5"),
        (lambda: setattr(env, "name", "x" * 32), "at most 31"),
        (lambda: tiles.set_color_envelope(pos), "not Color"),
        (lambda: quads.set_quads(one_quad(quads, color_envelope=7)), "quad #0: field `color_envelope` = 7"),
        (lambda: quads.set_quads(one_quad(quads, position_envelope=env.index)), "field `position_envelope` = 0 names a Color"),
        (lambda: quads.set_quads(np.zeros((1, 5), np.int32)), "quads are records of the quad dtype"),
        (lambda: sounds.set_sources(np.zeros((1, 5), np.int32)), "int32 of shape (n, 13)"),
        (lambda: sounds.set_sources([{"falloff": 300}]), "source #0: field `falloff` = 300"),
        (lambda: sounds.set_sources([{"sound_envelope": pos.index}]), "source #0: field `sound_envelope` = 1 names a Position"),
        (lambda: sounds.set_sources([{"shape": {"kind": 4}}]), "field `shape.kind` = 4"),
        (lambda: sounds.set_sources([{"delay": "soon"}]), "source #0: field `delay` = soon"),
        (lambda: setattr(image, "name", "n" * 501), "at most 500"),
        (lambda: image.set_pixels(np.zeros((4, 4, 3), np.uint8)), "shape (height, width, 4)"),
        (lambda: image.set_pixels(np.zeros((4, 4, 4), np.float32)), "pixels are uint8"),
        (lambda: image.set_pixels(b"not a png"), "PNG"),
        (lambda: m.add_sound("s", b"OggS\0"), "Ogg"),
        (lambda: m.sounds[0].set_data(b"RIFF"), "Ogg Opus"),
        (lambda: m.move_envelope(env, 2), "position 2 is past the 2 envelopes"),
        (lambda: m.add_group("g", clip=(0, 0, -1, 5), at=0), "a clip of -1x5"),
        (lambda: m.move_layer(tiles, group, at=99), "layer position 99 is past"),
    ]
    for call, says in cases:
        with pytest.raises(twcodec.Error) as raised:
            call()
        assert says in str(raised.value), (says, str(raised.value))
    assert m.to_bytes() == before
    # A refused edit moved nothing: the handles still work.
    assert (env.name, pos.name, tiles.kind, group.name) == ("fade", "p", "tiles", group_name)
    # A handle of another map.
    other = twcodec.Map.new()
    with pytest.raises(ValueError, match="of another map"):
        other.remove_envelope(env)


def test_set_points_round_trips_on_a_corpus_map(corpus: Path) -> None:
    path = corpus / "maps" / "ddnet_Castle_Echos.map"
    if not path.is_file():
        _missing(f"no {path.name} in the corpus")
    m = twcodec.Map.load(path)
    before = [(e.points, e.bezier) for e in m.envelopes]
    assert any(b for _, b in before), "the map has bezier tangents"
    for envelope in m.envelopes:
        envelope.set_points(envelope.points, envelope.bezier)
    read = twcodec.Map.parse(m.to_bytes())
    assert [(e.points, e.bezier) for e in read.envelopes] == before
    for envelope, (points, _) in zip(read.envelopes, before):
        if points:
            assert envelope.eval(points[-1]["time"] / 3) == m.envelopes[envelope.index].eval(points[-1]["time"] / 3)


def every_kind_map() -> twcodec.Map:
    """A map from nothing with every layer kind, images (external and from PNG bytes),
    envelopes with points, a sound with a source, and quads."""
    m = twcodec.Map.new(40, 30)
    m.set_info(author="twcodec", license="CC0")
    game_group = m.groups[0]
    game = m.game_layer
    tiles = game.tiles(structured=True).copy()
    tiles["id"][:, 0] = tiles["id"][:, -1] = tiles["id"][0, :] = tiles["id"][-1, :] = 1
    tiles["id"][5, 5] = 192  # spawn
    game.set_tiles(tiles)
    for kind in ("front", "tele", "speedup", "switch", "tune"):
        m.add_layer(game_group, kind)
    grass = m.add_external_image("grass_main")
    stripes = np.zeros((64, 64, 4), np.uint8)
    stripes[::2, :, :] = [255, 255, 255, 255]
    painted = m.add_embedded_image("stripes", png(stripes))
    fade = m.add_envelope("color", "fade", FADE, synchronized=True)
    orbit = m.add_envelope("position", "orbit", [(0, (0, 0, 0)), (4000, (0, 0, 360 * 1024), "linear")])
    swell = m.add_envelope("sound", "swell", [(0, [0]), (1500, [1024], "smooth")])
    back = m.add_group("Background", parallax=(50, 50))
    sky = m.add_layer(back, "quads", "Sky")
    sky.image = painted
    sky.set_quads(one_quad(sky, color_envelope=fade.index, position_envelope=orbit.index))
    deco = m.add_layer(m.add_group("Deco", at=1), "tiles", "Grass", width=40, height=30)
    deco.image = grass
    deco.set_color_envelope(fade, offset=100)
    grid = deco.tiles(structured=True).copy()
    grid["id"][10, 3:8] = 1
    deco.set_tiles(grid)
    sound = m.add_sound("hum", opus())
    # Inserting "Deco" before it made the handle of "Background" stale.
    sounds = m.add_layer(m.groups[2], "sounds", "Hum")
    sounds.sound = sound
    sounds.set_sources([{"position": (20 * 32 * 1024, 10 * 32 * 1024), "sound_envelope": swell.index, "position_envelope": orbit.index}])
    return m


def test_a_map_from_nothing_with_every_kind_loads_strictly(tmp_path: Path) -> None:
    m = every_kind_map()
    path = tmp_path / "every.map"
    m.save(path)
    read = twcodec.Map.load(path, strict=True, decode="all")
    assert read.problems == []
    kinds = sorted(l.kind for l in read.layers)
    assert kinds == sorted(["game", "front", "tele", "speedup", "switch", "tune", "quads", "tiles", "sounds"])
    assert [(i.name, i.external) for i in read.images] == [("grass_main", True), ("stripes", False)]
    assert [e.name for e in read.envelopes] == ["fade", "orbit", "swell"]
    assert read.sounds[0].data() == opus()
    hum = next(l for l in read.layers if l.kind == "sounds")
    assert hum.sound.name == "hum" and hum.sources()[0]["sound_envelope"] == 2
    assert [g.name for g in read.groups] == ["Game", "Deco", "Background"]
    assert not [p for p in read.check() if p.get("severity") == "error"]


def test_a_map_from_nothing_loads_in_ddnet(tmp_path: Path, map_test) -> None:
    path = tmp_path / "every.map"
    every_kind_map().save(path)
    map_test(path)


def test_a_setter_given_the_wrong_type_or_range_names_the_field_and_what_it_takes() -> None:
    m = twcodec.Map.sample()
    group, layer = m.groups[0], m.layers[3]
    env, sound, image = m.envelopes[0], m.sounds[0], m.images[0]
    before = m.to_bytes()
    cases = [
        (lambda: setattr(group, "offset", (1 << 40, 0)), "Group.offset = (1099511627776, 0): takes (x, y), two ints of 32 bits"),
        (lambda: setattr(group, "offset", ("a", 0)), "Group.offset = ('a', 0): takes (x, y)"),
        (lambda: setattr(group, "parallax", (1,)), "Group.parallax = (1,): takes (x, y)"),
        (lambda: setattr(group, "clip", 5), "Group.clip = 5: takes (x, y, width, height), four ints of 32 bits, or None"),
        (lambda: setattr(group, "name", 5), "Group.name = 5: takes a str"),
        (lambda: setattr(layer, "name", None), "Layer.name = None: takes a str"),
        (lambda: setattr(layer, "detail", "yes"), "Layer.detail = 'yes': takes True or False"),
        (lambda: setattr(layer, "color", (1, 2, 3)), "Layer.color = (1, 2, 3): takes (r, g, b, a)"),
        (lambda: setattr(layer, "color", (300, 0, 0, 0)), "color channel r = 300: each channel is 0 to 255"),
        (lambda: setattr(layer, "image", "grass_main"), "Layer.image = 'grass_main': takes an Image of this map, or None"),
        (lambda: setattr(layer, "sound", 0), "Layer.sound = 0: takes a Sound of this map, or None"),
        (lambda: setattr(env, "name", b"x"), "Envelope.name = b'x': takes a str"),
        (lambda: setattr(env, "synchronized", 1), "Envelope.synchronized = 1: takes True or False"),
        (lambda: setattr(sound, "name", 1.5), "Sound.name = 1.5: takes a str"),
        (lambda: setattr(image, "name", ["x" * 200]), "Image.name = ['" + "x" * 78 + "...: takes a str"),
    ]
    for call, says in cases:
        with pytest.raises(twcodec.Error) as raised:
            call()
        assert str(raised.value).startswith(says), (says, str(raised.value))
        assert raised.value.kind == "invalid_edit"
    assert m.to_bytes() == before


def test_a_quad_added_as_the_editor_makes_one(tmp_path: Path, map_test) -> None:
    m = twcodec.Map.new(20, 20)
    layer = m.add_layer(m.add_group("Deco"), "quads", "Clouds")
    assert layer.add_quad(1, 2) == 0
    assert layer.add_quad(3.5, 4, 1, 0.5, color=(10, 20, 30, 128)) == 1
    path = tmp_path / "quads.map"
    m.save(path)
    quads = twcodec.Map.load(path, strict=True).layers[-1].quads()
    tile = 32 * 1024
    assert quads["points"][0].tolist() == [[tile, 2 * tile], [3 * tile, 2 * tile], [tile, 4 * tile], [3 * tile, 4 * tile], [2 * tile, 3 * tile]]
    assert quads["points"][1][3].tolist() == [int(4.5 * tile), int(4.5 * tile)]
    assert quads["colors"][1].tolist() == [[10, 20, 30, 128]] * 4
    assert quads["texture_coords"][0].tolist() == [[0, 0], [1024, 0], [0, 1024], [1024, 1024]]
    assert quads["position_envelope"].tolist() == [-1, -1] and quads["color_envelope"].tolist() == [-1, -1]
    map_test(path)
    before = m.to_bytes()
    with pytest.raises(twcodec.Error, match=r"x \+ width = 1e300 tiles is past"):
        layer.add_quad(0, 0, 1e300)
    with pytest.raises(twcodec.Error, match="not a quads layer|quads"):
        m.game_layer.add_quad(0, 0)
    assert m.to_bytes() == before
