"""The README's Python session (section "Python") runs as shown: a doctest."""

import doctest
import re
import warnings

from conftest import REPO


def test_readme_session(tmp_path, monkeypatch):
    readme = (REPO / "README.md").read_text()
    section = readme.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    sessions = re.findall(r"```pycon\n(.*?)```", section, re.S)
    assert len(sessions) == 1
    monkeypatch.chdir(tmp_path)  # it writes assets/ and map_07.map
    test = doctest.DocTestParser().get_doctest(sessions[0], {}, "README.md#python", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the render's RenderWarning: no mapres folder here
        result = runner.run(test)
    assert (result.failed, result.attempted) == (0, len(test.examples))
