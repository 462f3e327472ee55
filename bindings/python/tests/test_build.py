"""Maps from nothing and the setters (issue 32's first part): Map.new, set_info, set_settings,
group and layer fields, adding and removing groups, layers and images, handles made stale."""

import numpy as np
import pytest

import twcodec


def test_a_map_from_nothing_saves_and_loads_strictly(tmp_path) -> None:
    m = twcodec.Map.new(60, 40)
    game = m.game_layer
    assert game is not None and (game.width, game.height) == (60, 40)
    tiles = game.tiles().copy()
    tiles[38, :, 0] = 1  # a floor
    tiles[37, 5, 0] = 192  # a spawn
    game.set_tiles(tiles)
    m.set_info(author="Tee", license="CC0")
    m.set_settings(["sv_team 1"])
    back = m.add_group("Background", parallax=(50, 50), at=0)
    sky = m.add_layer(back, "tiles", "Sky", width=20, height=10)
    sky.color = (40, 40, 80, 255)
    sky.image = m.add_external_image("grass_main")
    pixels = np.zeros((64, 64, 4), np.uint8)
    pixels[..., 3] = 255
    m.add_embedded_image("black", pixels)
    path = tmp_path / "new.map"
    m.save(path)
    read = twcodec.Map.load(path, strict=True)
    assert read.problems == []
    assert read.info["author"] == "Tee" and read.info["license"] == "CC0"
    assert read.info["settings"] == ["sv_team 1"]
    assert [g.name for g in read.groups] == ["Background", "Game"]
    assert read.groups[0].parallax == (50, 50)
    sky = read.groups[0].layers[0]
    assert (sky.name, sky.color, sky.width) == ("Sky", (40, 40, 80, 255), 20)
    assert sky.image.name == "grass_main"
    assert [i.name for i in read.images] == ["grass_main", "black"]
    assert read.game_layer.tiles()[37, 5, 0] == 192


def test_setters_raise_naming_what_and_change_nothing() -> None:
    m = twcodec.Map.new(10, 10)
    before = m.to_bytes()
    with pytest.raises(twcodec.Error, match="at most 15"):
        m.set_info(version="x" * 16)
    game_group = m.groups[0]
    with pytest.raises(twcodec.Error, match="game group's offset"):
        game_group.offset = (32, 0)
    with pytest.raises(twcodec.Error, match="at most 11"):
        game_group.name = "a very long name"
    with pytest.raises(twcodec.Error, match="0 to 255"):
        m.add_layer(game_group, "tiles").color = (0, 0, 0, 300)
    with pytest.raises(twcodec.Error, match="as large as the game layer"):
        m.add_layer(m.groups[0], "front", width=5, height=5)
    with pytest.raises(twcodec.Error, match="kind is one of"):
        m.add_layer(m.groups[0], "floor")
    m2 = twcodec.Map.new(10, 10)
    assert m2.to_bytes() == before


def test_handles_made_before_an_item_moved_raise() -> None:
    m = twcodec.Map.sample()
    layer = m.layers[3]
    name = layer.name
    group = m.groups[0]
    m.remove_group(m.groups[0])
    with pytest.raises(IndexError, match="gone"):
        layer.name
    with pytest.raises(IndexError, match="gone"):
        group.offset = (0, 0)
    # Fresh handles read the renumbered map; field setters keep handles.
    fresh = m.layers[0]
    fresh.name = "Renamed"
    assert fresh.name == "Renamed" and m.layers[0].name == "Renamed"
    assert name  # the old handle read its layer before the removal
    # A handle of another map is refused.
    other = twcodec.Map.sample()
    with pytest.raises(ValueError, match="another map"):
        m.remove_layer(other.layers[0])


def test_removing_layers_and_images_renumbers_references() -> None:
    m = twcodec.Map.sample()
    images = len(m.images)
    drawn = [l.image.name if l.image else None for l in m.layers]
    m.remove_image(m.images[0])
    assert len(m.images) == images - 1
    after = [l.image.name if l.image else None for l in m.layers]
    gone_name = twcodec.Map.sample().images[0].name
    assert after == [None if n == gone_name else n for n in drawn]
    layers = len(m.layers)
    m.remove_layer(m.layers[-1])
    assert len(m.layers) == layers - 1
    assert twcodec.Map.parse(m.to_bytes(), strict=True).problems == []


def test_tiles_of_every_kind_by_field_and_name() -> None:
    assert twcodec.tile_name(9) == "freeze"
    assert twcodec.tile_name(26, "tele") == "tele-in"
    assert twcodec.tile_name(0) is None
    assert twcodec.tile_ids("hook-through") == [5, 6, 66, 67]
    assert twcodec.tile_ids("spawn") == [192]
    assert twcodec.tile_ids("nothing") == []
    with pytest.raises(ValueError, match="kind is one of"):
        twcodec.tile_name(1, "floor")
    # A speedup layer's records: set force, angle and type by name, written back.
    m = twcodec.Map.new(20, 10)
    speedup = m.add_layer(m.groups[0], "speedup")
    tiles = speedup.tiles(structured=True).copy()
    assert tiles.dtype.names == ("force", "max_speed", "id", "reserved", "angle")
    tiles[3, 4] = (10, 0, twcodec.tile_ids("speedup", "speedup")[0], 0, -90)
    speedup.set_tiles(tiles)
    read = twcodec.Map.parse(m.to_bytes(), strict=True)
    record = read.layers[1].tiles(structured=True)[3, 4]
    assert (record["force"], record["id"], record["angle"]) == (10, 29, -90)


def test_quads_are_replaced_from_records_and_checked() -> None:
    m = twcodec.Map.sample()
    layer = next(l for l in m.layers if l.kind == "quads" and l.quads() is not None)
    quads = layer.quads().copy()
    count = len(quads)
    quads["colors"][..., 0] = 7
    layer.set_quads(quads[:1])
    read = twcodec.Map.parse(m.to_bytes(), strict=True)
    written = read.layers[layer.index].quads()
    assert len(written) == 1 and count >= 1
    assert (written["colors"][..., 0] == 7).all()
    bad = quads[:1].copy()
    bad["color_envelope"] = 99
    with pytest.raises(twcodec.Error, match="quad #0: field `color_envelope` = 99"):
        layer.set_quads(bad)
    with pytest.raises(ValueError, match="quad dtype"):
        layer.set_quads(np.zeros(5, np.uint8))
    with pytest.raises(twcodec.Error, match="not a quads layer"):
        m.game_layer.set_quads(quads[:1])


def test_the_package_is_one_abi3_wheel_for_every_cpython_from_3_9() -> None:
    from importlib.metadata import distribution

    wheel = distribution("twcodec").read_text("WHEEL") or ""
    tags = [line.split(": ", 1)[1] for line in wheel.splitlines() if line.startswith("Tag: ")]
    assert tags and all(tag.startswith("cp39-abi3-") for tag in tags), tags


def test_each_physics_layer_has_a_getter_as_the_game_layer_has() -> None:
    m = twcodec.Map.sample()
    for kind in ("game", "front", "tele", "speedup", "switch", "tune"):
        layer = getattr(m, f"{kind}_layer")
        assert layer.kind == kind and layer.index == [l.kind for l in m.layers].index(kind)
    empty = twcodec.Map.new(10, 10)
    assert empty.game_layer is not None
    assert [getattr(empty, f"{k}_layer") for k in ("front", "tele", "speedup", "switch", "tune")] == [None] * 5
    front = empty.add_layer(empty.groups[0], "front")
    assert empty.front_layer.index == front.index


def test_reprs_say_what_an_object_is() -> None:
    m = twcodec.Map.sample()
    assert repr(m.sounds[0]) == '<twcodec.Sound #0 "chime" embedded>'
    assert repr(m.images[0]) == '<twcodec.Image #0 "grass_main" 1024x1024 external>'
    assert repr(m.layers[3]) == '<twcodec.Layer #3 tiles "Ground">'
    other = m.copy()
    other.layers[3].name = "Grass"
    assert repr(m.diff(other)) == "<twcodec.Diff: 1 change in 1 place>"
    assert repr(m.diff(m.copy())) == "<twcodec.Diff: the same map>"
