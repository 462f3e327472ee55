"""Sets one game tile and saves: `python set_game_tile.py IN.map OUT.map X Y TILE` (TILE an id
or a name such as freeze).
"""

import argparse

import twcodec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("out")
    parser.add_argument("x", type=int)
    parser.add_argument("y", type=int)
    parser.add_argument("tile")
    args = parser.parse_args()

    tile = int(args.tile) if args.tile.isdigit() else twcodec.tile_ids(args.tile)[0]
    m = twcodec.Map.load(args.input)
    game = m.game_layer
    tiles = game.tiles().copy()
    tiles[args.y, args.x] = (tile, 0, 0, 0)
    game.set_tiles(tiles)
    m.save(args.out)
    print(f"wrote {args.out}: {twcodec.tile_name(tile) or tile} at {args.x},{args.y}")


if __name__ == "__main__":
    main()
