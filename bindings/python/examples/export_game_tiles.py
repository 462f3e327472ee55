"""The game tiles of a map by kind, as JSON: {"freeze": [[x, y], ...], ...}.

    python export_game_tiles.py IN.map [OUT.json]
"""

import argparse
import json
import sys
from collections import defaultdict

import numpy as np

import twcodec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("out", nargs="?")
    args = parser.parse_args()

    m = twcodec.Map.load(args.input)
    ids = m.game_layer.tiles(structured=True)["id"]
    kinds = defaultdict(list)
    for y, x in np.argwhere(ids != 0):
        tile = int(ids[y, x])
        kinds[twcodec.tile_name(tile) or f"id {tile}"].append([int(x), int(y)])
    # A line per kind.
    lines = [f"  {json.dumps(kind)}: {json.dumps(tiles)}" for kind, tiles in sorted(kinds.items())]
    text = "{\n" + ",\n".join(lines) + "\n}"
    if args.out:
        with open(args.out, "w") as out:
            out.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")


if __name__ == "__main__":
    main()
