"""A report page as the tests read it: its embedded JSON and the cells of its tables."""
import json
from html.parser import HTMLParser


class Page(HTMLParser):
    """The embedded JSON, and the cells of each table, as text."""

    def __init__(self, text):
        super().__init__()
        self.tables, self.data, self._cell, self._in_data = [], None, None, False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "script" and ("id", "report-data") in attrs:
            self._in_data = True

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell.strip())
            self._cell = None
        elif tag == "script":
            self._in_data = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._in_data:
            self.data = json.loads(data)


def page(path) -> Page:
    return Page(path.read_text())


def same(got, want):
    """JSON's view of want (NaN as null) equals got, floats to the last bit."""
    return got == json.loads(json.dumps(want).replace("NaN", "null"))
