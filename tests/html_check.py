"""Reads a page `export --format html` wrote with Python's own HTML parser
(a reader we did not write) and prints, as JSON, what a browser would find
in it: the scripts, event-handler attributes and `javascript:` links it
holds (there must be none), and the text of each message's section, the
labels of the folds left out (`Thinking`, `Tool call Edit ...`), so the
test can hold it against the transcript's text.

Usage: python3 tests/html_check.py PAGE.html
"""

import html.parser
import json
import sys


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts = 0
        self.handlers = []
        self.script_urls = []
        self.messages = {}
        self.section = None
        self.depth = 0
        self.in_label = 0
        self.stack = []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag == "script":
            self.scripts += 1
        for name, value in attrs:
            if name.lower().startswith("on"):
                self.handlers.append(f"{tag} {name}")
            if name.lower() in ("href", "src", "action", "formaction") and value:
                if value.strip().lower().startswith(("javascript:", "vbscript:", "data:text/html")):
                    self.script_urls.append(value)
        attrs = dict(attrs)
        if tag == "section" and "message" in (attrs.get("class") or "").split():
            self.section = attrs.get("id")
            self.messages[self.section] = []
        if self.section and tag in ("summary", "h2"):
            self.in_label += 1

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        if self.section and tag in ("summary", "h2"):
            self.in_label -= 1
        if tag == "section":
            self.section = None

    def handle_data(self, data):
        if self.section and not self.in_label:
            self.messages[self.section].append(data)


def main():
    page = Page()
    with open(sys.argv[1], encoding="utf-8") as f:
        page.feed(f.read())
    page.close()
    json.dump(
        {
            "scripts": page.scripts,
            "handlers": page.handlers,
            "script_urls": page.script_urls,
            "messages": {k: "".join(v) for k, v in page.messages.items()},
        },
        sys.stdout,
        ensure_ascii=False,
    )


main()
