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


def test_every_example_runs_on_a_generated_cave(tmp_path: Path) -> None:
    cave = tmp_path / "cave.map"
    assert "tiles dug" in run("generate_cave.py", str(cave), "--seed", "3")
    m = twcodec.Map.load(cave, strict=True)
    ids = m.game_layer.tiles(structured=True)["id"]
    for name in ("spawn", "start", "finish"):
        assert (ids == twcodec.tile_ids(name)[0]).sum() == 1, name
    assert [l.kind for l in m.layers] == ["game", "tiles"]

    one = tmp_path / "one.map"
    run("set_game_tile.py", str(cave), str(one), "10", "10", "freeze")
    assert twcodec.Map.load(one, strict=True).game_layer.tiles()[10, 10, 0] == 9

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

    png = tmp_path / "diff.png"
    assert "1 game tiles changed" in run("visual_diff.py", str(cave), str(one), str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
