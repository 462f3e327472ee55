"""What a twcodec.Renderer saves: the median of 10 renders of corpus maps drawn by a fresh
Map.render each time and by one Renderer, interleaved (load on a shared machine falls on both
alike), checking that both give the same pixels.

    python bindings/python/benches/renderer.py   # TWCODEC_CORPUS, default ../shared/corpus

Build the extension with the release profile first (pip install ./bindings/python): the dev
profile leaves the renderer unoptimized.
"""

import os
import statistics
import time
import warnings
from pathlib import Path

import twcodec

REPO = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("TWCODEC_CORPUS", REPO.parent / "shared" / "corpus"))
MAPRES = CORPUS / "mapres" / "ddnet"
TILESET = CORPUS / "mapres" / "entities" / "ddnet_comfort.png"


def bench(name, **options):
    m = twcodec.Map.load(CORPUS / "maps" / name)
    renderer = twcodec.Renderer(mapres=MAPRES, entities_tileset=TILESET)
    fresh, kept = [], []
    for _ in range(10):
        start = time.perf_counter()
        a = m.render(mapres=MAPRES, entities_tileset=TILESET, **options)
        fresh.append(time.perf_counter() - start)
        start = time.perf_counter()
        b = renderer.render(m, **options)
        kept.append(time.perf_counter() - start)
        assert (a == b).all()
    f, k = statistics.median(fresh), statistics.median(kept)
    shown = ", ".join(f"{key}={value}" for key, value in options.items())
    print(
        f"{name:34} {shown:24} fresh {f * 1000:7.1f} ms  Renderer {k * 1000:7.1f} ms  "
        f"ratio {f / k:5.2f}  ({renderer.cached} pictures kept)"
    )


def main():
    warnings.simplefilter("ignore", twcodec.RenderWarning)
    print("load average", os.getloadavg())
    bench("ddnetpp_survival_ext_sounds.map", width=1920)
    bench("tw06_stock_ctf5.map", width=1920)
    bench("tw06_stock_ctf5.map", width=640)
    bench("ddnet_Tutorial.map", width=1920)
    bench("ddnet_Tutorial.map", width=640)
    bench("ddnet_coverage.map", width=1920, entities=100)
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
