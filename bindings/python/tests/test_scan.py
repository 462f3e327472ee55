"""`twcodec.scan` rows against the CLI's `twcodec scan`, and the same scan on a Dask cluster."""

import json
import subprocess

import pytest

import twcodec


def cli_rows(cli, *args):
    """The CLI's JSONL rows (exit 1 when a file failed, which the corpus has on purpose)."""
    out = subprocess.run([cli, "scan", *map(str, args)], capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_scan_a_directory(tmp_path):
    (tmp_path / "b sample.map").write_bytes(twcodec.sample())
    (tmp_path / "a broken.map").write_bytes(b"DATA\x04\0\0\0 cut short")
    (tmp_path / "notes.txt").write_bytes(b"not scanned")
    files = twcodec.find([tmp_path])
    assert [f.rsplit("/", 1)[1] for f in files] == ["a broken.map", "b sample.map"]
    rows = twcodec.scan([tmp_path])
    assert rows == [twcodec.scan_file(f) for f in files]
    broken, sample = rows
    assert broken["kind"] == "map" and "header" in broken["error"] and "map" not in broken
    assert sample["error"] is None
    assert sample["map"]["layer_kinds"] == {
        "front": 1, "game": 1, "quads": 1, "sounds": 1, "speedup": 1, "switch": 1, "tele": 1, "tiles": 1, "tune": 1,
    }
    assert (sample["map"]["game_width"], sample["map"]["game_height"]) == (12, 8)


def test_rows_are_the_clis(corpus, cli):
    rows = twcodec.scan([corpus])
    assert len(rows) == 46
    assert rows == cli_rows(cli, corpus)


def test_dask_local_cluster(corpus, cli):
    distributed = pytest.importorskip("dask.distributed")
    import twcodec.dask

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as tasks:
            rows = twcodec.dask.scan([corpus], client=client)
        # Same rows, in the same order, as `twcodec scan`.
        assert rows == cli_rows(cli, corpus)
        # One task per file, spread over both workers.
        assert len(tasks.data) == len(rows)
        assert len({task["worker"] for task in tasks.data}) == 2
        deep = twcodec.dask.scan([corpus], deep=True)  # the current client
        assert deep == twcodec.scan([corpus], deep=True)
        assert all(r["demo"]["ticks"] > 0 for r in deep if r["kind"] == "demo" and r["error"] is None)
