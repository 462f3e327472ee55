"""A visual diff of two versions of a map: both drawn with their physics layers over them,
side by side, every game tile that changed framed in red.

    python visual_diff.py OLD.map NEW.map OUT.png [--scale 8] [--mapres DIR]
"""

import argparse

import numpy as np

import twcodec


def draw(m: twcodec.Map, scale: int, mapres) -> np.ndarray:
    return m.render(scale=scale, entities=60, mapres=mapres)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("out")
    parser.add_argument("--scale", type=int, default=8)
    parser.add_argument("--mapres")
    args = parser.parse_args()

    old, new = twcodec.Map.load(args.old), twcodec.Map.load(args.new)
    a, b = old.game_layer.tiles(), new.game_layer.tiles()
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    changed = np.argwhere((a[:h, :w, :2] != b[:h, :w, :2]).any(axis=2))
    del a, b
    left, right = draw(old, args.scale, args.mapres), draw(new, args.scale, args.mapres)
    height = max(left.shape[0], right.shape[0])
    picture = np.zeros((height, left.shape[1] + right.shape[1], 4), np.uint8)
    picture[: left.shape[0], : left.shape[1]] = left
    picture[: right.shape[0], left.shape[1] :] = right
    # A drawing of the whole map starts at tile (0, 0), `scale` pixels a tile.
    s = args.scale
    for y, x in changed:
        for offset in (0, left.shape[1]):
            x0, y0 = offset + x * s, y * s
            box = picture[y0 : y0 + s, x0 : x0 + s]
            box[[0, -1], :] = (255, 0, 0, 255)
            box[:, [0, -1]] = (255, 0, 0, 255)
    import zlib, struct  # a PNG without another dependency

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row.tobytes() for row in picture)
    png = b"\x89PNG\r\n\x1a\n" + chunk(
        b"IHDR", struct.pack(">IIBBBBB", picture.shape[1], picture.shape[0], 8, 6, 0, 0, 0)
    ) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    with open(args.out, "wb") as out:
        out.write(png)
    print(f"wrote {args.out}: {len(changed)} game tiles changed")


if __name__ == "__main__":
    main()
