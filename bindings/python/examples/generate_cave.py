"""A map from nothing: a cave dug by a random walk, with a game layer, a design layer drawn
with DDNet's grass tileset (an external image) and a spawn, start and finish.

    python generate_cave.py OUT.map [--seed N] [--width W] [--height H]
"""

import argparse
import random

import numpy as np

import twcodec


def cave(width: int, height: int, seed: int) -> np.ndarray:
    """True where the walk dug: a cave of about a third of the area, its border kept solid."""
    rng = random.Random(seed)
    dug = np.zeros((height, width), bool)
    x, y = width // 2, height // 2
    for _ in range(width * height):
        dug[y - 1 : y + 2, x - 1 : x + 2] = True
        dx, dy = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
        x = min(max(x + dx, 3), width - 4)
        y = min(max(y + dy, 3), height - 4)
    return dug


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--width", type=int, default=80)
    parser.add_argument("--height", type=int, default=50)
    args = parser.parse_args()

    dug = cave(args.width, args.height, args.seed)
    m = twcodec.Map.new(args.width, args.height)
    m.set_info(author="generate_cave.py", license="CC0")
    solid = twcodec.tile_ids("solid")[0]
    game = m.game_layer.tiles().copy()
    game[..., 0] = np.where(dug, 0, solid)
    # Spawn, start and finish on the floor of dug tiles: a dug tile above a solid one.
    floor = np.argwhere(dug[:-1] & ~dug[1:])
    floor = floor[np.lexsort((floor[:, 0], floor[:, 1]))]  # left to right
    for (y, x), name in zip(
        [floor[0], floor[len(floor) // 2], floor[-1]], ["spawn", "start", "finish"]
    ):
        game[y, x, 0] = twcodec.tile_ids(name)[0]
    m.game_layer.set_tiles(game)

    # The design: the same walls drawn with grass_main (tile 1 is its plain ground).
    design = m.add_layer(m.groups[0], "tiles", "Walls")
    tiles = design.tiles().copy()
    tiles[..., 0] = np.where(dug, 0, 1)
    design.set_tiles(tiles)
    design.image = m.add_external_image("grass_main")
    m.save(args.out)
    print(f"wrote {args.out}: {int(dug.sum())} of {dug.size} tiles dug")


if __name__ == "__main__":
    main()
