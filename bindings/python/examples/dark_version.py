"""A dark version of a map: every tiles layer's color and every quad's corner colors scaled
(alpha kept).

    python dark_version.py IN.map OUT.map [--factor 0.4]
"""

import argparse

import twcodec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("out")
    parser.add_argument("--factor", type=float, default=0.4)
    args = parser.parse_args()

    m = twcodec.Map.load(args.input)
    changed = 0
    for layer in m.layers:
        if layer.kind == "tiles":
            r, g, b, a = layer.color
            layer.color = tuple(round(c * args.factor) for c in (r, g, b)) + (a,)
            changed += 1
        elif layer.kind == "quads" and layer.quads() is not None:
            quads = layer.quads().copy()  # a copy: the view itself is read-only
            rgb = quads["colors"][..., :3]
            quads["colors"][..., :3] = (rgb * args.factor).round().astype(rgb.dtype)
            layer.set_quads(quads)
            changed += 1
    m.save(args.out)
    print(f"wrote {args.out}: {changed} layers darkened")


if __name__ == "__main__":
    main()
