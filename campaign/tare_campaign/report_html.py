"""The campaign report as one self-contained HTML page (issue 25): per model a table of every run
(accuracy, flips against the first run, median latency, CPU utilization, peak RSS), a bar chart
of the median latency per engine and thread count (inline SVG), the top-1 flip matrix between
every pair of runs, and a link to the model's `tare compare` report (compare.py) with its
accuracy and attributed flips. No scripts; the compare reports are the only other files.

    page(report) -> str      report: the dict that `tare campaign report` writes as report.json
"""

from html import escape

_STYLE = ("body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}"
          "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#eee}td:first-child,th:first-child"
          "{text-align:left}.zero{color:#070}.some{color:#b00;font-weight:bold}h2{margin-top:1.5em}"
          "pre{white-space:pre-wrap;overflow-wrap:anywhere}")  # long run labels (file paths) wrap


def _num(v, digits):
    return "&ndash;" if v is None else f"{v:.{digits}f}"


def _bars(rows):
    """An SVG bar chart of median ms per run (rows with a latency)."""
    rows = [r for r in rows if r.get("median_ms") is not None]
    if not rows:
        return "<p>No timing results.</p>"
    top = max(r["median_ms"] for r in rows) or 1
    w, bar, gap, left = 420, 18, 6, 190
    h = len(rows) * (bar + gap) + 24
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + w + 80}" height="{h}" role="img" '
             f'aria-label="median latency per run">']
    for i, r in enumerate(rows):
        y = i * (bar + gap)
        length = max(1, round(w * r["median_ms"] / top))
        color = "#4a78b5" if r["engine"].startswith("tare") else "#c8783c"
        label = escape(f"{r['engine']}, {r['threads']} thread{'s' if r['threads'] > 1 else ''}")
        parts.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end" font-size="12">{label}</text>')
        parts.append(f'<rect x="{left}" y="{y}" width="{length}" height="{bar}" fill="{color}"/>')
        parts.append(f'<text x="{left + length + 4}" y="{y + 13}" font-size="12">{r["median_ms"]:.3f} ms</text>')
    parts.append(f'<text x="{left}" y="{h - 4}" font-size="11" fill="#666">median latency (ms); tare blue, peers orange</text>')
    parts.append("</svg>")
    return "".join(parts)


def page(rep):
    h = [f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tare campaign {escape(rep['campaign'])}</title>"
         f"<style>{_STYLE}</style></head><body>",
         f"<h1>tare campaign: {escape(rep['campaign'])}</h1>",
         f"<p>{rep['tasks_done']} of {rep.get('tasks_total', rep['tasks_done'])} task results.</p>"]
    for model in dict.fromkeys(r["model"] for r in rep["rows"]):
        rows = [r for r in rep["rows"] if r["model"] == model]
        h.append(f"<h2>{escape(model)}</h2>")
        h.append("<table><tr><th>engine</th><th>threads</th><th>accuracy</th><th>top-1 flips vs first</th>"
                 "<th>median ms</th><th>CPU utilization</th><th>peak RSS MB</th><th>repetitions</th></tr>")
        for r in rows:
            fl = r.get("flips")
            cls = "" if fl is None else (' class="zero"' if fl == 0 else ' class="some"')
            h.append(f"<tr><td>{escape(r['engine'])}</td><td>{r['threads']}</td><td>{_num(r.get('accuracy'), 4)}</td>"
                     f"<td{cls}>{'&ndash;' if fl is None else fl}</td><td>{_num(r.get('median_ms'), 3)}</td>"
                     f"<td>{_num(r.get('cpu_utilization'), 2)}</td><td>{_num(r.get('peak_rss_mb'), 1)}</td>"
                     f"<td>{r.get('repetitions', '&ndash;')}</td></tr>")
        h.append("</table>")
        h.append(_bars(rows))
        cmp = rep.get("compare", {}).get(model)
        if cmp:
            link = f'<a href="{escape(cmp["html"])}">tare compare report</a>' if cmp.get("html") else escape(cmp["text"])
            h.append(f"<h3>The engines through tare compare</h3><p>{link} (its text: <a href=\"{escape(cmp['text'])}\">"
                     f"{escape(cmp['text'])}</a>; exit status {cmp['exit']})</p>")
            if cmp.get("summary"):
                h.append("<pre>" + escape("\n".join(cmp["summary"])) + "</pre>")
        fm = rep.get("flips", {}).get(model)
        if fm and fm["runs"]:
            h.append("<h3>Top-1 flips between runs</h3><table><tr><th></th>"
                     + "".join(f"<th>{escape(n)}</th>" for n in fm["runs"]) + "</tr>")
            for name, line in zip(fm["runs"], fm["matrix"]):
                h.append(f"<tr><th>{escape(name)}</th>" + "".join(
                    f'<td class="{"zero" if v == 0 else "some"}">{v}</td>' for v in line) + "</tr>")
            h.append("</table>")
    h.append("</body></html>\n")
    return "\n".join(h)
