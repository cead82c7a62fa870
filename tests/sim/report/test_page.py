"""sim.report.page: the HTML page, its escaping and its embedded data; output paths checked first."""
import json
import re

import pytest

from sim.errors import SettingError
from sim.report.page import check_output, default_output, html_table, pairs_table, render_page


def test_text_is_escaped_and_the_data_is_one_script_that_reads_back():
    data = {"name": "</script><b>", "n": 3}
    text = render_page("a<b", "sub & co", [("T", html_table({"strategy": ["<x>"], "n": [1]}))], [],
                pairs_table([("key", "</script>")]), data).decode()
    assert "<h1>a&lt;b</h1>" in text and "sub &amp; co" in text and "&lt;x&gt;" in text
    assert text.count("</script>") == 1   # the data's own "</" cannot end the element early
    blob = re.search(r'<script type="application/json" id="report-data">(.*)</script>', text, re.S)[1]
    assert json.loads(blob) == data


def test_output_paths_are_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        check_output(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        check_output(tmp_path / "no" / "r.html")
    with pytest.raises(SettingError):
        check_output(tmp_path / "r.html", "png")
    with pytest.raises(SettingError):
        check_output(tmp_path / "r.html", "html", tmp_path / "figs")
    assert check_output(tmp_path / "r.html", "png", tmp_path / "figs") == tmp_path / "figs"


def test_the_default_report_is_beside_the_dataset(tmp_path):
    assert default_output(tmp_path / "ds") == tmp_path / "ds.html"
    with pytest.raises(SettingError):
        default_output("s3://bucket/ds")
