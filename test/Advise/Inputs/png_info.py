"""Prints a PNG's width, height and whether its top rows hold more than one
colour (a blank page would not): 'png 1200x2400 colours>1'. Reads the IHDR
chunk and decodes the image data (8-bit RGB or RGBA, no interlace: the form
Chromium writes) with zlib and the five PNG filters."""
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("not a png")
    sys.exit(1)
width, height, depth, ctype = struct.unpack(">IIBB", data[16:26])
idat, pos = b"", 8
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + length]
    pos += 12 + length
raw = zlib.decompress(idat)
channels = {2: 3, 6: 4}.get(ctype, 0)
stride = 1 + width * channels
colours = set()
# Unfilter the top rows (the title and the summary cards) and count their
# colours: enough to tell a blank page from a rendered report.
prev = bytearray(stride - 1)
for y in range(min(height, 300)):
    line = raw[y * stride:(y + 1) * stride]
    ftype, cur = line[0], bytearray(line[1:])
    for i in range(len(cur)):
        a = cur[i - channels] if i >= channels else 0
        b = prev[i]
        c = prev[i - channels] if i >= channels else 0
        if ftype == 1:
            cur[i] = (cur[i] + a) & 255
        elif ftype == 2:
            cur[i] = (cur[i] + b) & 255
        elif ftype == 3:
            cur[i] = (cur[i] + (a + b) // 2) & 255
        elif ftype == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[i] = (cur[i] + pred) & 255
    for x in range(0, len(cur), channels * 3):
        colours.add(bytes(cur[x:x + 3]))
    prev = cur
print("png %dx%d colours%s1" % (width, height, ">" if len(colours) > 1 else "="))
