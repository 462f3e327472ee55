"""Between maps through the bindings: `Map.replace_area` and `Map.append` and their reports."""

import gc

import pytest

import twcodec


def test_append_shares_identical_items_and_reports_every_fact():
    m = twcodec.Map.sample()
    before = len(m.layers)
    report = m.append(twcodec.Map.sample())
    assert [(i["from"], i["to"], i["name"], i["how"]) for i in report["images"]] == [
        (0, 0, "grass_main", "shared"),
        (1, 1, "checker", "shared"),
    ]
    assert [(e["from"], e["to"], e["how"]) for e in report["envelopes"]] == [
        (0, 0, "shared"),
        (1, 1, "shared"),
        (2, 2, "shared"),
    ]
    assert [(g["from"], g["to"], g["layers"], g["from_game_group"]) for g in report["groups"]] == [
        (0, 2, 2, False),
        (1, 3, 1, True),
    ]
    assert [d["kind"] for d in report["dropped"]] == ["game", "front", "tele", "speedup", "switch", "tune"]
    assert report["automappers"] == 1
    assert report["settings_added"] == [] and report["settings_present"] == 2
    assert report["facts"][0] == 'image #0 "grass_main": shared with #0'
    assert len(m.layers) == before + 3
    # The written map loads with the appended groups.
    again = twcodec.Map.parse(m.to_bytes())
    assert [g.name for g in again.groups] == ["Background", "Game", "Background", "Game"]


def test_append_into_itself():
    m = twcodec.Map.sample()
    report = m.append(m)
    assert len(report["groups"]) == 2
    assert len(m.groups) == 4


def test_replace_area_copies_physics_and_refuses_what_does_not_fit():
    source = twcodec.Map.sample()
    m = twcodec.Map.sample()
    report = m.replace_area(source, (4, 1, 5, 2), (1, 4))
    tele = report["layers"][5]
    assert (tele["kind"], tele["tiles"], tele["changed"]) == ("tele", 10, True)
    assert "layer #5 (tele): 10 tiles replaced" in report["facts"]
    # The same area onto itself changes nothing.
    unchanged = m.replace_area(m, (0, 0, 12, 8), (0, 0))
    assert not any(layer["changed"] for layer in unchanged["layers"])
    saved = m.to_bytes()
    with pytest.raises(twcodec.Error, match="reaches out of the source map's 12x8 game layer") as error:
        m.replace_area(source, (10, 6, 3, 2), (0, 0))
    assert error.value.kind == "invalid_edit"
    with pytest.raises(twcodec.Error, match="holds no tiles"):
        m.replace_area(source, (1, 1, 0, 3), (0, 0))
    assert m.to_bytes() == saved


def test_edits_wait_for_no_array_viewing_the_map():
    m = twcodec.Map.sample()
    tiles = m.layers[2].tiles()
    with pytest.raises(BufferError):
        m.append(twcodec.Map.sample())
    with pytest.raises(BufferError):
        m.replace_area(twcodec.Map.sample(), (0, 0, 2, 2), (0, 0))
    del tiles
    gc.collect()
    m.append(twcodec.Map.sample())


def test_corpus_maps_append_into_the_sample(corpus):
    for path in sorted((corpus / "maps").glob("*.map"))[:8]:
        other = twcodec.Map.load(path)
        m = twcodec.Map.sample()
        try:
            report = m.append(other)
        except twcodec.Error as error:
            assert error.kind == "limit_exceeded", f"{path.name}: {error}"
            continue
        assert len(report["images"]) == len(other.images), path.name
        twcodec.Map.parse(m.to_bytes())
