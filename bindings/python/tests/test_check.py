"""Map.check: the reader's problems, DDNet's gameplay checks and a rules file (docs/checks.md)."""

from pathlib import Path

import pytest

import twcodec


def test_the_sample_map_plays_without_findings_but_a_rules_file_finds_some(tmp_path: Path) -> None:
    m = twcodec.Map.sample()
    assert [f for f in m.check() if f["severity"] != "note"] == []
    rules = tmp_path / "rules.toml"
    rules.write_text('[limits]\nmax-layers = 1\n[info]\nlicenses = ["CC0"]\n')
    found = m.check(ddnet=False, rules=rules)
    assert [f["check"] for f in found] == ["limits.max-layers", "info.licenses"]
    assert all(f["severity"] == "error" for f in found)
    assert found[0]["message"].endswith("more than the 1 allowed")


def test_a_bad_rules_file_raises(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text("[tiles]\nrequired = [\"frezee\"]\n")
    with pytest.raises(twcodec.Error, match='did you mean "freeze"'):
        twcodec.Map.sample().check(rules=rules)


def test_the_corpus_findings_match_the_command(corpus: Path) -> None:
    m = twcodec.Map.load(corpus / "maps" / "ddnet_coverage.map")
    found = m.check()
    tele = [f for f in found if f["check"] == "tele-no-destination"]
    assert len(tele) == 1
    assert tele[0]["layer"]["kind"] == "tele"
    assert tele[0]["tiles"] == [[38, 6], [39, 6], [40, 6], [41, 6]]
    # Without the gameplay checks: only what the reader finds.
    assert all(f["check"] == "load" for f in m.check(ddnet=False))
