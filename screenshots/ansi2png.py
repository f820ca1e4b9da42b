#!/usr/bin/env python3
"""Render an ANSI screen capture (tmux `capture-pane -e -p`) to a PNG.

Usage: ansi2png.py CAPTURE.ans OUT.png COLS ROWS [light]

`light` draws the terminal's own colours (what a theme leaves at the
default) dark on white, as a light terminal would; the default is a dark
terminal.

Handles the SGR subset terminals use for TUIs: bold, dim, italic,
underline, reverse, 16/256/24-bit colours. One character per cell, drawn
with DejaVu Sans Mono (falling back to DejaVu Sans for glyphs Mono lacks).
"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
SIZE = 15
DEFAULT_FG = (200, 204, 212)
DEFAULT_BG = (30, 33, 39)
BASE16 = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]


# Box-drawing characters drawn as lines so borders join across rows:
# (up, down, left, right), heavy.
BOX = {}
for chars, heavy in (("│─╭╮╰╯├┤┬┴┼", False), ("┃━┏┓┗┛┣┫┳┻╋", True)):
    for c, arms in zip(chars, ["ud", "lr", "dr", "dl", "ur", "ul", "udr", "udl", "dlr", "ulr", "udlr"]):
        BOX[c] = (arms, heavy)


def xterm256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


class Style:
    def __init__(self):
        self.fg = None
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def copy(self):
        s = Style()
        s.__dict__.update(self.__dict__)
        return s


def apply_sgr(st, params):
    p = [int(x) if x else 0 for x in params.split(";")] if params else [0]
    i = 0
    while i < len(p):
        c = p[i]
        if c == 0:
            st = Style()
        elif c == 1:
            st.bold = True
        elif c == 2:
            st.dim = True
        elif c == 3:
            st.italic = True
        elif c == 4:
            st.underline = True
        elif c == 7:
            st.reverse = True
        elif c == 22:
            st.bold = st.dim = False
        elif c == 23:
            st.italic = False
        elif c == 24:
            st.underline = False
        elif c == 27:
            st.reverse = False
        elif 30 <= c <= 37:
            st.fg = BASE16[c - 30]
        elif 90 <= c <= 97:
            st.fg = BASE16[c - 90 + 8]
        elif 40 <= c <= 47:
            st.bg = BASE16[c - 40]
        elif 100 <= c <= 107:
            st.bg = BASE16[c - 100 + 8]
        elif c == 39:
            st.fg = None
        elif c == 49:
            st.bg = None
        elif c in (38, 48) and i + 1 < len(p):
            if p[i + 1] == 5 and i + 2 < len(p):
                col = xterm256(p[i + 2])
                i += 2
            elif p[i + 1] == 2 and i + 4 < len(p):
                col = tuple(p[i + 2:i + 5])
                i += 4
            else:
                col = None
            if c == 38:
                st.fg = col
            else:
                st.bg = col
        i += 1
    return st


def parse(text, cols, rows):
    grid = [[(" ", Style()) for _ in range(cols)] for _ in range(rows)]
    st = Style()
    for y, line in enumerate(text.split("\n")[:rows]):
        x = 0
        for m in re.finditer(r"\x1b\[([0-9;]*)m|\x1b[^\[]|([^\x1b])", line):
            if m.group(2) is not None:
                if x < cols:
                    grid[y][x] = (m.group(2), st.copy())
                x += 1
            elif m.group(1) is not None or m.group(0).endswith("m"):
                st = apply_sgr(st, m.group(1) or "")
        # tmux leaves the style on at line ends; cells past the text keep the default.
    return grid


LIGHT_FG = (56, 58, 66)
LIGHT_BG = (250, 250, 250)


def main():
    global DEFAULT_FG, DEFAULT_BG
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if sys.argv[5:6] == ["light"]:
        DEFAULT_FG, DEFAULT_BG = LIGHT_FG, LIGHT_BG
    text = open(src, encoding="utf-8", errors="replace").read()
    grid = parse(text, cols, rows)
    fonts = {
        (b, i): ImageFont.truetype(FONT_DIR + name, SIZE)
        for (b, i), name in {
            (False, False): "DejaVuSansMono.ttf",
            (True, False): "DejaVuSansMono-Bold.ttf",
            (False, True): "DejaVuSansMono-Oblique.ttf",
            (True, True): "DejaVuSansMono-BoldOblique.ttf",
        }.items()
    }
    fallback = ImageFont.truetype(FONT_DIR + "DejaVuSans.ttf", SIZE)
    cw = round(fonts[(False, False)].getlength("M"))
    ch = round(SIZE * 1.34)
    img = Image.new("RGB", (cols * cw + 16, rows * ch + 16), DEFAULT_BG)
    d = ImageDraw.Draw(img)
    mono_has = {}

    def has_glyph(c):
        # A glyph Mono lacks renders as the same box as a private-use codepoint.
        if c not in mono_has:
            f = fonts[(False, False)]
            mono_has[c] = f.getmask(c).getbbox() != f.getmask("\ue000").getbbox() or c == " "
        return mono_has[c]

    for y, row in enumerate(grid):
        for x, (c, s) in enumerate(row):
            fg, bg = s.fg or DEFAULT_FG, s.bg or DEFAULT_BG
            if s.reverse:
                fg, bg = bg, fg
            if s.dim:
                fg = tuple((a + b) // 2 for a, b in zip(fg, bg))
            px, py = 8 + x * cw, 8 + y * ch
            if bg != DEFAULT_BG:
                d.rectangle([px, py, px + cw - 1, py + ch - 1], fill=bg)
            if c == " ":
                continue
            # Block and box characters fill the cell exactly.
            if c == "█":
                d.rectangle([px, py, px + cw - 1, py + ch - 1], fill=fg)
                continue
            if c in BOX:
                arms, heavy = BOX[c]
                w = 3 if heavy else 1
                cx, cy = px + cw // 2, py + ch // 2
                for a, (x1, y1) in zip("udlr", [(cx, py), (cx, py + ch), (px, cy), (px + cw, cy)]):
                    if a in arms:
                        d.line([cx, cy, x1, y1], fill=fg, width=w)
                continue
            font = fonts[(s.bold, s.italic)] if has_glyph(c) else fallback
            d.text((px, py + 2), c, font=font, fill=fg)
            if s.underline:
                d.line([px, py + ch - 2, px + cw - 1, py + ch - 2], fill=fg)
    img.save(out)


if __name__ == "__main__":
    main()
