"""The scripts of bindings/python/examples, run as a user runs them, on a generated map: what
each writes loads strictly and holds what it says."""

import json
import subprocess
import sys
from pathlib import Path

import twcodec

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_every_example_runs_on_a_generated_cave(tmp_path: Path, map_test) -> None:
    cave = tmp_path / "cave.map"
    assert "tiles dug" in run("generate_cave.py", str(cave), "--seed", "3")
    m = twcodec.Map.load(cave, strict=True)
    ids = m.game_layer.tiles(structured=True)["id"]
    for name in ("spawn", "start", "finish"):
        assert (ids == twcodec.tile_ids(name)[0]).sum() == 1, name
    assert [l.kind for l in m.layers] == ["game", "tiles"]
    spawn_start_finish = [int(ids[ids == twcodec.tile_ids(n)[0]][0]) for n in ("spawn", "start", "finish")]

    one = tmp_path / "one.map"
    run("set_game_tile.py", str(cave), str(one), "10", "10", "freeze")
    assert twcodec.Map.load(one, strict=True).game_layer.tiles()[10, 10, 0] == 9

    front = tmp_path / "front.map"
    out = run("game_to_front.py", str(one), str(front), "--move")
    assert "4 tiles copied" in out and "solid tiles stay in the game layer" in out
    m = twcodec.Map.load(front, strict=True)
    [front_layer] = [l for l in m.layers if l.kind == "front"]
    moved = front_layer.tiles()[..., 0]
    assert moved[10, 10] == 9 and sorted(moved[moved != 0].tolist()) == sorted([9, *spawn_start_finish])
    game_ids = m.game_layer.tiles()[..., 0]
    assert set(game_ids.ravel().tolist()) == {0, 1}
    assert (game_ids == 1).sum() == (ids == 1).sum() - (ids[10, 10] == 1)

    dark = tmp_path / "dark.map"
    run("dark_version.py", str(cave), str(dark), "--factor", "0.5")
    assert twcodec.Map.load(dark, strict=True).layers[1].color == (128, 128, 128, 255)

    table = tmp_path / "table.json"
    table.write_text('{"1": 2}')
    remapped = tmp_path / "remap.map"
    run("remap_doodads.py", str(cave), str(remapped), "grass_main", str(table))
    walls = twcodec.Map.load(remapped, strict=True).layers[1].tiles()[..., 0]
    assert set(walls.ravel().tolist()) <= {0, 2}

    exported = json.loads(run("export_game_tiles.py", str(cave)))
    assert len(exported["spawn"]) == 1 and len(exported["solid"]) == int((ids == 1).sum())

    rules = tmp_path / "rules.toml"
    rules.write_text('[tiles]\nrequired = ["spawn"]\n[info]\nrequired = ["license"]\n')
    assert "[no-time-checkpoints]" in run("ci_check.py", str(rules), str(cave))
    rules.write_text('[tiles]\nrequired = ["freeze"]\n')
    failed = subprocess.run(
        [sys.executable, str(EXAMPLES / "ci_check.py"), str(rules), str(cave)],
        capture_output=True,
        text=True,
    )
    assert failed.returncode == 1 and "[tiles.required]" in failed.stdout

    for written in (cave, one, front, dark, remapped):
        map_test(written)

    png = tmp_path / "diff.png"
    assert "1 game tiles changed" in run("visual_diff.py", str(cave), str(one), str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_dark_version_of_a_real_map(tmp_path: Path, corpus: Path, map_test) -> None:
    source = corpus / "maps" / "ddnet_Sunny_Side_Up.map"
    if not source.is_file():
        source = min((corpus / "maps").rglob("*.map"), key=lambda p: p.stat().st_size)
    dark = tmp_path / "dark.map"
    assert "layers darkened" in run("dark_version.py", str(source), str(dark), "--factor", "0.5")
    before, after = twcodec.Map.load(source), twcodec.Map.load(dark, strict=True)
    scaled = 0
    for old, new in zip(before.layers, after.layers):
        if old.kind == "tiles":
            r, g, b, a = old.color
            assert new.color == (round(r * 0.5), round(g * 0.5), round(b * 0.5), a)
            scaled += 1
        elif old.kind == "quads" and old.quads() is not None:
            was, now = old.quads()["colors"], new.quads()["colors"]
            assert (now[..., 3] == was[..., 3]).all()
            assert (abs(now[..., :3] - was[..., :3] * 0.5) <= 0.5).all()
            scaled += 1
        else:
            assert old.kind == new.kind
    assert scaled > 0
    map_test(dark)
