#!/usr/bin/env python3
"""Turn a `tmux capture-pane -e` dump (text with SGR colour codes) into an
HTML page that looks like the terminal, for headless Chromium to photograph.

Usage: ansi_to_html.py CAPTURE.ansi COLUMNS ROWS > page.html
"""
import html
import re
import sys
import unicodedata

PALETTE = ["#1e1e1e", "#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#dcdfe4",
           "#5c6370", "#ff7b86", "#b5e890", "#ffd68a", "#82c4ff", "#dd9cf0", "#7bd6e0", "#ffffff"]
FG, BG = "#dcdfe4", "#1e1e1e"


def color256(n):
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def apply(self, codes):
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0: self.reset()
            elif c == 1: self.bold = True
            elif c == 2: self.dim = True
            elif c == 3: self.italic = True
            elif c == 4: self.underline = True
            elif c == 7: self.reverse = True
            elif c == 22: self.bold = self.dim = False
            elif c == 23: self.italic = False
            elif c == 24: self.underline = False
            elif c == 27: self.reverse = False
            elif 30 <= c <= 37: self.fg = PALETTE[c - 30]
            elif c == 39: self.fg = None
            elif 40 <= c <= 47: self.bg = PALETTE[c - 40]
            elif c == 49: self.bg = None
            elif 90 <= c <= 97: self.fg = PALETTE[c - 90 + 8]
            elif 100 <= c <= 107: self.bg = PALETTE[c - 100 + 8]
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    value = color256(codes[i + 2]); i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    value = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5]); i += 4
                else:
                    value = None
                if c == 38: self.fg = value
                else: self.bg = value
                i += 1
            i += 1

    def css(self):
        fg, bg = self.fg or FG, self.bg or BG
        if self.reverse:
            fg, bg = bg, fg
        parts = ["color:%s" % fg]
        if bg != BG:
            parts.append("background:%s" % bg)
        if self.bold: parts.append("font-weight:bold")
        if self.dim: parts.append("opacity:0.6")
        if self.italic: parts.append("font-style:italic")
        if self.underline: parts.append("text-decoration:underline")
        return ";".join(parts)


def cells(text):
    """Escapes text; a wide character gets exactly two cells, as in the terminal."""
    out = []
    for ch in text:
        if unicodedata.east_asian_width(ch) in ("W", "F"):
            out.append('<span style="display:inline-block;width:2ch;overflow:hidden">%s</span>' % html.escape(ch))
        else:
            out.append(html.escape(ch))
    return "".join(out)


def convert(text):
    style = Style()
    out = []
    for token in re.split(r"(\x1b\[[0-9;]*m)", text):
        if token.startswith("\x1b["):
            codes = [int(x) if x else 0 for x in token[2:-1].split(";")]
            style.apply(codes)
        elif token:
            out.append('<span style="%s">%s</span>' % (style.css(), cells(token)))
    return "".join(out)


def main():
    path, cols, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    text = open(path, encoding="utf-8", errors="replace").read()
    lines = text.split("\n")[:rows]
    body = "\n".join(convert(line) for line in lines)
    print("""<!doctype html><meta charset="utf-8"><style>
html,body{margin:0;background:%s}
pre{margin:0;padding:10px;font:15px/18px 'DejaVu Sans Mono','Noto Sans Mono CJK JP',monospace;color:%s;width:%dch}
</style><pre>%s</pre>""" % (BG, FG, cols, body))


main()
