"""`Map.convert` takes the names `twcodec resave --to` takes (the CLI's `Target` value enum),
besides its own ('ddnet', 'teeworlds07')."""

import re
import subprocess

import pytest

import twcodec
from conftest import REPO

MAPS_RS = REPO / "cli" / "src" / "maps.rs"


def cli_targets():
    """The `--to` names of `resave`: clap's kebab-case variant names, or `#[value(name = ...)]`."""
    body = re.search(r"enum Target \{(.*?)\n\}", MAPS_RS.read_text(), re.S).group(1)
    names, renamed = [], None
    for line in body.splitlines():
        line = line.strip()
        if m := re.fullmatch(r'#\[value\(name = "([^"]+)"\)\]', line):
            renamed = m.group(1)
        elif m := re.fullmatch(r"([A-Z][A-Za-z0-9]*),", line):
            names.append(renamed or re.sub(r"(?<!^)([A-Z])", r"-\1", m.group(1)).lower())
            renamed = None
    return names


def test_cli_names_are_known():
    assert cli_targets() == ["ddnet", "0.7"]


@pytest.mark.parametrize("name", cli_targets())
def test_convert_accepts_the_cli_names(name):
    canonical = {"0.7": "teeworlds07"}.get(name, name)
    by_cli_name, by_own_name = twcodec.Map.sample(), twcodec.Map.sample()
    if canonical == "ddnet":
        by_cli_name.convert("teeworlds07")
        by_own_name.convert("teeworlds07")
    by_cli_name.convert(name)
    by_own_name.convert(canonical)
    assert by_cli_name.form == by_own_name.form == canonical
    assert by_cli_name.to_bytes() == by_own_name.to_bytes()


def test_convert_writes_what_resave_writes(cli, tmp_path):
    sample = tmp_path / "sample.map"
    sample.write_bytes(twcodec.sample())
    out = tmp_path / "out.map"
    subprocess.run([cli, "resave", str(sample), str(out), "--to", "0.7"], check=True, capture_output=True)
    m = twcodec.Map.sample()
    m.convert("0.7")
    assert m.to_bytes() == out.read_bytes()


def test_unknown_name():
    with pytest.raises(twcodec.Error, match="form is 'ddnet' or 'teeworlds07', not \"0.6\""):
        twcodec.Map.sample().convert("0.6")
