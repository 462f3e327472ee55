"""Tiles through the bindings: the automapper, the "Game tiles" button, replacing tiles."""

import numpy as np
import pytest

import twcodec


def ids(m, layer):
    """The id byte of every tile of a layer: the first field of tiles, game and front layers,
    the type (second) of tele layers."""
    tiles = m.layers[layer].tiles()
    return tiles[:, :, 1 if m.layers[layer].kind == "tele" else 0].copy()


# -- automap ------------------------------------------------------------------------------------


def test_automap_runs_a_rules_file_of_its_own(tmp_path):
    # The sample's "Ground" layer is drawn with grass_main and has an automatic automapper item
    # (configuration 0, seed 42).
    (tmp_path / "grass_main.rules").write_text("[Fill]\nIndex 7\n[Edges]\nIndex 8\nPos 0 -1 EMPTY\n")
    m = twcodec.Map.sample()
    ground = ids(m, 3)
    outcomes = m.automap(tmp_path)
    assert outcomes == [
        {
            "layer": 3,
            "name": "Ground",
            "config": "Fill",
            "seed": 42,
            "changed": int((ground != 0).sum() - (ground == 7).sum()),
            "skipped": None,
        }
    ]
    assert np.array_equal(ids(m, 3), np.where(ground != 0, 7, 0))
    # One layer, by name or index, with another configuration and seed.
    [outcome] = m.automap(str(tmp_path), layer=3, config="Edges", seed=5)
    assert (outcome["config"], outcome["seed"]) == ("Edges", 5)
    [outcome] = m.automap(tmp_path, layer="Ground", config=0)
    assert (outcome["config"], outcome["seed"]) == ("Fill", 42)


def test_automap_skips_layers_without_rules_and_refuses_what_is_not_there(tmp_path):
    m = twcodec.Map.sample()
    before = m.to_bytes()
    [outcome] = m.automap(tmp_path)
    assert outcome["skipped"] == str(tmp_path / "grass_main.rules")
    assert outcome["changed"] == 0 and outcome["config"] is None
    (tmp_path / "grass_main.rules").write_text("[Fill]\nIndex 7\n")
    with pytest.raises(twcodec.Error, match=r"no such configuration .* \(it has \[\"Fill\"\]\)") as error:
        m.automap(tmp_path, layer="Ground", config="Nope")
    assert error.value.kind == "invalid_options"
    with pytest.raises(twcodec.Error, match='the map has no layer "Nope"') as error:
        m.automap(tmp_path, layer="Nope")
    assert error.value.kind == "invalid_options"
    with pytest.raises(twcodec.Error, match="seed 0"):
        m.automap(tmp_path, layer="Ground", seed=0)
    with pytest.raises(twcodec.Error, match="layer #1 has no image"):
        m.automap(tmp_path, layer="Sounds")
    with pytest.raises(twcodec.Error, match="by index .* or by name"):
        m.automap(tmp_path, layer=1.5)
    (tmp_path / "grass_main.rules").write_text("[Fill]\nIndex\n")
    with pytest.raises(twcodec.Error, match=r"grass_main.rules:2: expected a tile number after Index"):
        m.automap(tmp_path)
    assert m.to_bytes() == before


def test_automap_reproduces_the_corpus_layers(corpus):
    m = twcodec.Map.load(corpus / "maps" / "goresgen_minimalistic_blue.map")
    before = m.to_bytes()
    outcomes = m.automap(corpus / "automap")
    assert outcomes[0] == {
        "layer": 2,
        "name": "Freeze",
        "config": "Freeze",
        "seed": 1,
        "changed": 0,
        "skipped": None,
    }
    assert all(o["changed"] == 0 for o in outcomes)
    assert m.to_bytes() == before


# -- game tiles ---------------------------------------------------------------------------------


def test_game_tiles_put_the_ops_tile_under_the_layers_tiles():
    for op, tile in [("freeze", 9), ("deep-unfreeze", 13), ("live-unfreeze", 145), ("air", 0)]:
        m = twcodec.Map.sample()
        ground, game = ids(m, 3), ids(m, 2)
        report = m.fill_game_tiles("Ground", op)
        assert report["tiles"] == int((ground != 0).sum())
        assert (report["target"], report["target_kind"], report["op"]) == (2, "game", op)
        assert np.array_equal(ids(m, 2), np.where(ground != 0, tile, game))
        assert report["fact"].startswith(f'layer #3 "Ground": {report["tiles"]} tiles of {op} ({tile})')
        saved = twcodec.Map.parse(m.to_bytes())
        assert np.array_equal(ids(saved, 2), ids(m, 2))


def test_hookthrough_and_check_teles():
    m = twcodec.Map.sample()
    ground = ids(m, 3)
    report = m.fill_game_tiles(3, "hookthrough")
    assert report["front"] == report["tiles"]
    assert (ids(m, 2)[ground != 0] == 3).all()
    assert (ids(m, 4)[ground != 0] == 5).all()
    m.fill_game_tiles(3, "Red Check-Tele")
    tele = m.layers[5].tiles(structured=True).copy()
    assert (tele["id"][ground != 0] == 63).all() and (tele["number"][ground != 0] == 1).all()
    # Freeze clears the front layer's hookthrough.
    m.fill_game_tiles(3, "freeze")
    assert (ids(m, 4)[ground != 0] == 0).all()


def test_game_tiles_refuse_and_change_nothing():
    m = twcodec.Map.sample()
    before = m.to_bytes()
    with pytest.raises(twcodec.Error, match="is not a game tile op; one of air, hookable") as error:
        m.fill_game_tiles("Ground", "frost")
    assert error.value.kind == "invalid_options"
    with pytest.raises(twcodec.Error, match="layer #0 is a quads layer") as error:
        m.fill_game_tiles("Quads", "freeze")
    assert error.value.kind == "invalid_edit"
    with pytest.raises(twcodec.Error, match="layer #2 is a game layer"):
        m.fill_game_tiles(2, "freeze")
    with pytest.raises(twcodec.Error, match='no layer "9"'):
        m.fill_game_tiles(9, "freeze")
    assert m.to_bytes() == before


# -- replace tiles ------------------------------------------------------------------------------


def test_replace_tiles_in_an_area_only():
    m = twcodec.Map.sample()
    game = m.layers[2].tiles().copy()
    report = m.replace_tiles("Game", 1, (3, 0), area=(0, 5, 4, 3))
    after = m.layers[2].tiles().copy()
    inside = np.zeros(game.shape[:2], bool)
    inside[5:8, 0:4] = True
    hit = inside & (game[:, :, 0] == 1)
    assert report["replaced"] == int(hit.sum())
    assert report["area"] == (0, 5, 4, 3) and report["kind"] == "game"
    assert (after[hit][:, :2] == [3, 0]).all()
    assert np.array_equal(after[~hit], game[~hit])
    # The whole layer, by index.
    report = m.replace_tiles(2, 3, 1)
    assert report["area"] == (0, 0, 12, 8)


def test_replace_tiles_keeps_tele_numbers_and_refuses_bad_requests():
    m = twcodec.Map.sample()
    tele = m.layers[5].tiles(structured=True).copy()
    kind = int(tele["id"][tele["id"] != 0][0])
    report = m.replace_tiles("Tele", kind, 10)
    after = m.layers[5].tiles(structured=True).copy()
    assert report["replaced"] == int((tele["id"] == kind).sum())
    assert np.array_equal(after["number"], tele["number"])
    assert np.array_equal(after["id"], np.where(tele["id"] == kind, 10, tele["id"]))
    before = m.to_bytes()
    for call, message in [
        (lambda: m.replace_tiles("Game", 1, 2, area=(10, 0, 5, 1)), "reaches out of layer #2's 12x8 tiles"),
        (lambda: m.replace_tiles("Game", 1, 2, area=(0, 0, 0, 1)), "holds no tiles"),
        (lambda: m.replace_tiles("Tele", (10, 1), 2), "whose tiles have no flags"),
        (lambda: m.replace_tiles("Sounds", 1, 2), "tiles are replaced in tile layers"),
        (lambda: m.replace_tiles("Game", 256, 2), r"from_ is a tile id \(0 to 255\) or \(id, flags\)"),
    ]:
        with pytest.raises(twcodec.Error, match=message):
            call()
    with pytest.raises(OverflowError):
        m.replace_tiles("Game", 1, 2, area=(-1, 0, 1, 1))
    assert m.to_bytes() == before
