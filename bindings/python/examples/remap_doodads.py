"""Replaces tile ids in every tiles layer drawn with one image, from a JSON table
{"old id": new id, ...} (the 0.6 to 0.7 doodads move, for example).

    python remap_doodads.py IN.map OUT.map IMAGE TABLE.json
"""

import argparse
import json

import numpy as np

import twcodec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("out")
    parser.add_argument("image")
    parser.add_argument("table")
    args = parser.parse_args()

    with open(args.table) as f:
        table = {int(old): int(new) for old, new in json.load(f).items()}
    lookup = np.arange(256, dtype=np.uint8)
    for old, new in table.items():
        lookup[old] = new
    m = twcodec.Map.load(args.input)
    changed = 0
    for layer in m.layers:
        if layer.kind == "tiles" and layer.image is not None and layer.image.name == args.image:
            tiles = layer.tiles().copy()
            before = tiles[..., 0].copy()
            tiles[..., 0] = lookup[before]
            changed += int((tiles[..., 0] != before).sum())
            layer.set_tiles(tiles)
    m.save(args.out)
    print(f"wrote {args.out}: {changed} tiles remapped")


if __name__ == "__main__":
    main()
