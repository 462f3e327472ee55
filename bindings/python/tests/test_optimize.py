"""`Map.optimize` through the bindings: its report, dry runs, skipped steps and bad options."""

import pytest

import twcodec


def test_optimize_reports_every_step_and_the_saved_map_matches():
    m = twcodec.Map.sample()
    report = m.optimize()
    assert [s["step"] for s in report["steps"]] == [
        "unused", "shrink", "cells", "transparent", "dilate", "recompress"
    ]
    assert report["bytes_after"] == report["steps"][-1]["bytes"]
    assert report["bytes_after"] <= report["bytes_before"]
    # The recompress step is the saving, at the level optimize measured with.
    assert len(m.to_bytes(level=9)) == report["bytes_after"]
    for step in report["steps"]:
        assert all(isinstance(line, str) for line in step["changes"])


def test_a_dry_run_leaves_the_map_as_it_was():
    m = twcodec.Map.sample()
    before = m.to_bytes()
    report = m.optimize(dry_run=True)
    assert report["bytes_before"] == len(before)
    assert m.to_bytes() == before


def test_skipped_steps_do_not_run(corpus):
    m = twcodec.Map.load(corpus / "maps" / "ddnet_Tutorial.map")
    report = m.optimize(skip=["shrink", "recompress"], keep_images=True, dry_run=True)
    assert [s["step"] for s in report["steps"]] == ["unused"]
    full = m.optimize(dry_run=True)
    cells = next(s for s in full["steps"] if s["step"] == "cells")
    assert any('"round_tiles"' in line and "cells no tile uses" in line for line in cells["changes"])
    assert full["bytes_after"] < full["bytes_before"]


def test_an_unknown_step_or_level_is_an_error_and_changes_nothing():
    m = twcodec.Map.sample()
    before = m.to_bytes()
    with pytest.raises(twcodec.Error) as error:
        m.optimize(skip=["pictures"])
    assert error.value.kind == "invalid_options"
    assert "not 'pictures'" in str(error.value) or 'not "pictures"' in str(error.value)
    with pytest.raises(twcodec.Error) as error:
        m.optimize(level=10)
    assert "zlib level 10 is past 9" in str(error.value)
    assert m.to_bytes() == before
