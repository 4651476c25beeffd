#!/usr/bin/python3
"""tests/tools/promparse.py: a strict parser of the Prometheus text exposition
format 0.0.4, for tests/incluster.sh (checks gpuform's metrics by parsing them,
not by eye).

    promparse.py FILE      exit 0 and print one "name{k="v",...} value" line per
                           sample (labels sorted), or exit 1 naming the first
                           line that breaks the format

Checked: HELP/TYPE comment syntax, metric and label names, label value escapes,
float values, a TYPE (counter|gauge|untyped|summary|histogram) before the first
sample of each metric and at most one TYPE per metric, samples of one metric
together, no duplicate series, counters named *_total and not negative, a final
newline.
"""
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
VALUE = r"(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?Inf|NaN)"


def fail(n, line, why):
    print(f"line {n}: {why}: {line!r}")
    sys.exit(1)


def parse_labels(n, line, s):
    labels = {}
    i = 0
    while i < len(s):
        m = re.match(LABEL, s[i:])
        if not m:
            fail(n, line, "bad label name")
        key = m.group(0)
        i += len(key)
        if s[i:i + 2] != '="':
            fail(n, line, "expected =\" after a label name")
        i += 2
        val = []
        while True:
            if i >= len(s):
                fail(n, line, "unterminated label value")
            c = s[i]
            if c == "\\":
                nxt = s[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    fail(n, line, "bad escape in a label value")
                val.append("\n" if nxt == "n" else nxt)
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == "\n":
                fail(n, line, "newline in a label value")
            else:
                val.append(c)
                i += 1
        if key in labels:
            fail(n, line, "duplicate label")
        labels[key] = "".join(val)
        if i < len(s):
            if s[i] != ",":
                fail(n, line, "expected , between labels")
            i += 1
    return labels


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    if not text.endswith("\n"):
        fail(0, text[-40:], "no final newline")
    types, helps, seen, done, out = {}, {}, set(), set(), []
    current = None
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("#"):
            m = re.fullmatch(r"# (HELP|TYPE) (" + NAME + r") (.*)", line)
            if not m:
                if re.match(r"# (HELP|TYPE)", line):
                    fail(n, line, "bad HELP/TYPE line")
                continue
            kind, name, rest = m.groups()
            if kind == "TYPE":
                if rest not in ("counter", "gauge", "untyped", "summary", "histogram"):
                    fail(n, line, "unknown type")
                if name in types:
                    fail(n, line, "second TYPE for a metric")
                if name in done:
                    fail(n, line, "TYPE after the metric's samples")
                types[name] = rest
            else:
                if name in helps:
                    fail(n, line, "second HELP for a metric")
                helps[name] = rest
            continue
        if not line.strip():
            continue
        m = re.fullmatch(r"(" + NAME + r")(?:\{(.*)\})? (" + VALUE + r")(?: (-?[0-9]+))?", line)
        if not m:
            fail(n, line, "not a sample line")
        name, lab, val = m.group(1), m.group(2) or "", m.group(3)
        if name not in types:
            fail(n, line, "sample before its TYPE")
        if current != name:
            if name in done:
                fail(n, line, "samples of one metric are not together")
            if current:
                done.add(current)
            current = name
        labels = parse_labels(n, line, lab)
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            fail(n, line, "duplicate series")
        seen.add(key)
        v = float(val)
        if types[name] == "counter":
            if not name.endswith("_total"):
                fail(n, line, "counter not named *_total")
            if v < 0:
                fail(n, line, "negative counter")
        ls = ",".join(f'{k}="{v2}"' for k, v2 in sorted(labels.items()))
        out.append(f"{name}{{{ls}}} {val}")
    for name in types:
        if name not in helps:
            fail(0, name, "metric without HELP")
    print("\n".join(out))


main()
