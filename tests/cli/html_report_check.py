#!/usr/bin/env python3
"""Parses an HTML report of `tare compare` and checks it against the JSON report of the same run.

Usage: html_report_check.py REPORT.html REPORT.json

What a reader must find (compare/report.h, CompareHtml / DataSetHtml), checked element by element
with the standard library's html.parser (no browser): the page is self-contained (no src, href,
@import or url(), one inline script); the verdicts come first; single-input reports have, per model
with layers, a chained plot with one line and one legend entry per backend and peer, a point per
compared layer whose hover text names the node and its op, the noise-floor band, an isolated plot
with one line per tare backend and the budget band, and a sortable layer table with a row per node;
data-set reports have a bar per run whose hover text gives its accuracy, and a flip matrix whose
cells hold the JSON's flip counts. Prints "ok KIND" or the first failed check; exit 1 on failure.
"""
import html.parser
import json
import sys


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], ""

    def find_all(self, tag=None, cls=None):
        out = []
        for c in self.children:
            if (tag is None or c.tag == tag) and (cls is None or cls in c.attrs.get("class", "").split()):
                out.append(c)
            out.extend(c.find_all(tag, cls))
        return out

    def all_text(self):
        return self.text + "".join(c.all_text() for c in self.children)


VOID = {"meta", "br", "img", "input", "link", "hr"}  # HTML void elements; SVG ones are closed explicitly


class Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def title_of(el):
    t = el.find_all("title")
    return t[0].all_text() if t else ""


def check_common(src, root):
    low = src.lower()
    for bad in ("src=", "href=", "@import", "url("):
        check(bad not in low, "the page references something outside it: " + bad)
    scripts = root.find_all("script")
    check(len(scripts) == 1 and "src" not in scripts[0].attrs, "one inline script")
    h2 = root.find_all("h2")
    check(h2 and h2[0].all_text() == "Verdicts", "the verdicts come first (first h2: %r)" % (h2[0].all_text() if h2 else None))


def check_single(root, report):
    verdicts = [li.all_text() for li in root.find_all("section")[0].find_all("li")]
    for p in report["pairs"]:
        check(any(p["verdict"] in v for v in verdicts), "verdict %r at the top" % p["verdict"])
    sections = root.find_all("section", "layers")
    with_layers = [m for m in report["models"] if m.get("layers")]
    check(len(sections) == len(with_layers), "a layers section per model with layers")
    for sec, m in zip(sections, with_layers):
        runs = [l["backend"] for l in m["layers"]]
        tare_runs = [l["backend"] for l in m["layers"] if not l.get("peer")]
        plots = sec.find_all("svg", "plot")
        check(len(plots) == (2 if tare_runs else 1), "%s: the chained and isolated plots" % m["file"])
        chained = plots[0]
        legend = [t.all_text() for t in chained.find_all("text", "legend")]
        check(legend == runs, "%s: legend %r, runs %r" % (m["file"], legend, runs))
        series = chained.find_all("g", "series")
        check([g.attrs["data-name"] for g in series] == runs, "a line per run and peer")
        for g, l in zip(series, m["layers"]):
            compared = [n for n in l["nodes"] if n["chained"]]
            tips = [title_of(c) for c in g.find_all("circle")]
            check(len(tips) == len(compared), "%s: %d points, %d compared layers" % (l["backend"], len(tips), len(compared)))
            for t, n in zip(tips, compared):
                check(t.startswith("%s (%s) on %s: rel L2 " % (n["node"], n["op"], l["backend"])), "hover text %r" % t)
        check(chained.find_all("polygon", "band"), "the noise-floor band")
        if tare_runs:
            iso = plots[1]
            check([g.attrs["data-name"] for g in iso.find_all("g", "series")] == tare_runs, "isolated: a line per tare backend")
            check("within budget" in title_of(iso.find_all("polygon", "band")[0]), "the budget band")
        table = sec.find_all("table", "sortable")
        check(len(table) == 1, "one sortable layer table")
        nodes = {n["index"] for l in m["layers"] for n in l["nodes"]}
        rows = table[0].find_all("tbody")[0].find_all("tr")
        check(len(rows) == len(nodes), "%d rows for %d nodes" % (len(rows), len(nodes)))
        heads = [th.all_text() for th in table[0].find_all("th")]
        check(len(heads) == 3 + len(runs) + len(tare_runs), "columns %r" % heads)
        for r in rows:
            cells = r.find_all("td")
            check(len(cells) == len(heads), "a row of %d cells" % len(cells))
            check(all("data-v" in c.attrs for c in cells if "n" in c.attrs.get("class", "")), "numeric cells sort by data-v")
    for sec, p in zip(root.find_all("section", "pair"), report["pairs"]):
        check(p["verdict"] in sec.all_text(), "the pair's verdict in its section")
        if p.get("layers"):
            check(len(sec.find_all("circle")) == len(p["layers"]), "a point per aligned layer")


def check_dataset(root, report):
    runs = [r["run"] for r in report["runs"]]
    bars = root.find_all("rect", "bar")
    check(len(bars) == len(runs), "a bar per run")
    for b, r in zip(bars, report["runs"]):
        check(title_of(b).startswith("%s: accuracy %.4f" % (r["run"], r["accuracy"])), "bar hover %r" % title_of(b))
    (matrix,) = root.find_all("table", "flips")
    head = [th.all_text() for th in matrix.find_all("thead")[0].find_all("th")]
    check(head == [""] + runs, "flip matrix columns %r" % head)
    flips = {}
    for p in report["pairs"]:
        flips[(p["a"], p["b"])] = flips[(p["b"], p["a"])] = len(p["flips"])
    rows = matrix.find_all("tbody")[0].find_all("tr")
    check(len(rows) == len(runs), "a matrix row per run")
    for a, row in zip(runs, rows):
        cells = row.find_all("td")
        for b, c in zip(runs, cells):
            want = "-" if a == b else str(flips[(a, b)])
            check(c.all_text() == want, "flips %s / %s: %r, the JSON says %s" % (a, b, c.all_text(), want))


def main():
    src = open(sys.argv[1], encoding="utf-8").read()
    report = json.load(open(sys.argv[2]))
    t = Tree()
    t.feed(src)
    check_common(src, t.root)
    if report["kind"] == "dataset":
        check_dataset(t.root, report)
    else:
        check_single(t.root, report)
    print("ok " + report["kind"])


if __name__ == "__main__":
    main()
