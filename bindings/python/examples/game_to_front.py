"""Copies the game layer's tiles into a new front layer: `python game_to_front.py IN.map OUT.map
[--tiles freeze,death] [--move]`.

Every game tile the front layer can hold is copied with its flags (all of them, or only the
named ones with --tiles); --move also clears them from the game layer. Solid and unhookable
tiles stay in the game layer: DDNet does not read them from the front layer (twcodec's
`check --ddnet` reports them there as `unknown-id`, see docs/checks.md). A map that has a front
layer already is refused rather than overwritten.
"""

import argparse
import sys

import numpy as np

import twcodec

# What DDNet's front layer does not read (the collision itself).
NOT_IN_FRONT = {1, 3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("out")
    parser.add_argument("--tiles", help="comma-separated tile names or ids (default: all)")
    parser.add_argument("--move", action="store_true", help="clear them from the game layer")
    args = parser.parse_args()

    m = twcodec.Map.load(args.input)
    game = m.game_layer
    if game is None:
        sys.exit(f"{args.input} has no game layer")
    if any(layer.kind == "front" for layer in m.layers):
        sys.exit(f"{args.input} has a front layer already")
    tiles = game.tiles().copy()  # a copy: a view would keep the map from being edited
    ids = tiles[..., 0]
    if args.tiles:
        wanted = set()
        for name in args.tiles.split(","):
            found = [int(name)] if name.isdigit() else twcodec.tile_ids(name)
            if not found:
                sys.exit(f"no game tile is named {name!r}")
            wanted.update(found)
    else:
        wanted = set(np.unique(ids).tolist()) - {0}
    kept = wanted & NOT_IN_FRONT
    copied = np.isin(ids, sorted(wanted - NOT_IN_FRONT))

    front_tiles = np.zeros_like(tiles)
    front_tiles[copied] = tiles[copied]
    group = m.groups[game.group]
    front = m.add_layer(group, "front", width=game.width, height=game.height)
    front.set_tiles(front_tiles)
    if args.move:
        rest = tiles.copy()
        rest[copied] = 0
        m.game_layer.set_tiles(rest)
    m.save(args.out)
    print(f"wrote {args.out}: {int(copied.sum())} tiles copied into the front layer")
    for tile in sorted(kept):
        print(f"{int((ids == tile).sum())} {twcodec.tile_name(tile)} tiles stay in the game layer")


if __name__ == "__main__":
    main()
