"""The HTML reports as a real browser shows them (CTest: reports_in_browser, reports_in_browser_catches).

Opens every page of a reports folder (index.html included) in headless Chromium at 1400 px and fails,
naming the page and the reason, when
  - the page is wider than the viewport (documentElement.scrollWidth > clientWidth, which is
    innerWidth less the vertical scrollbar: the page would scroll sideways),
  - an image did not load (not complete, or naturalWidth 0),
  - a local link (href to a file beside the page: SVG, CSV, another page) names a missing file,
  - the visible text says NaN or inf as a word ("n/a" is fine),
  - Chromium printed no DOM or ran past 60 s.
The measurements come from a small script injected into a temporary copy of the page (same folder,
so relative links and images resolve as they do for the page itself): on `load` it writes them as
JSON into an attribute of <body>, which --dump-dom then prints. A full-page screenshot of every page
(1400 px wide, as tall as the page up to 16000 px) is kept in SCREENSHOTS (default REPORTS/screenshots).

  browser_check.py REPORTS [--build WS_NOTEBOOKS --bench-results DIR [--only N ...]] [--screenshots DIR]
  browser_check.py --self-test WORK_DIR

With --build the folder is emptied and the reports are built into it first, in quick mode; a notebook
that does not build fails the test (the pages written before it are still checked). --self-test
feeds the checker a bad page (a 3000 px table, a broken image, "NaN", a missing CSV) and a good one,
and fails unless it reports each fault of the first and none of the second.
Standard library only; needs /usr/bin/chromium (scripts/setup.sh installs it).
"""
import argparse
import base64
import html.parser
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib
from pathlib import Path

VIEWPORT_WIDTH = 1400
PAGE_TIMEOUT_S = 60
MAX_SHOT_HEIGHT = 16000
PROBE_ATTR = "data-browser-check"
# Marks a folder this script may empty before writing into it (never a folder it did not make).
MARKER = ".browser_check"
# NaN or inf as a word; "-inf" whole when the minus starts a word ("x-inf" says "inf").
BAD_WORD = re.compile(r"(?<!\w)(nan|-?inf|infinity)\b", re.IGNORECASE)

# Runs on `load`, when every image has loaded or failed.
PROBE = """<script>/* browser_check.py */
window.addEventListener('load', function () {
  var d = document.documentElement, b = document.body;
  var images = Array.prototype.map.call(document.images, function (i) {
    return {alt: i.getAttribute('alt') || '', src: (i.getAttribute('src') || '').slice(0, 60),
            ok: i.complete && i.naturalWidth > 0};
  });
  b.setAttribute('%s', JSON.stringify({
    scroll_width: d.scrollWidth, inner_width: window.innerWidth, client_width: d.clientWidth,
    scroll_height: Math.max(d.scrollHeight, b.scrollHeight), images: images}));
});
</script>""" % PROBE_ATTR


class NoChromium(Exception):
    pass


def find_chromium(given):
    for c in [given, shutil.which("chromium"), "/usr/bin/chromium"]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise NoChromium("chromium not installed: run scripts/setup.sh")


def run_chromium(chromium, flags, page):
    """Chromium's stdout, or None when it ran past PAGE_TIMEOUT_S (then it and its children are killed)."""
    profile = tempfile.mkdtemp(prefix="browser_check_profile_")
    # NOTE: its own session, so a timeout kills the renderer and GPU processes too, not only the
    # browser (whose children would keep the pipe open and hang communicate()).
    p = subprocess.Popen([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          f"--user-data-dir={profile}", *flags, page.resolve().as_uri()],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=PAGE_TIMEOUT_S)
        return out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class PageParser(html.parser.HTMLParser):
    """Visible text (no <script>, <style>; entities decoded), every href, and the probe's attribute."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.hrefs, self.probe, self._hidden = [], [], None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style", "template"):
            self._hidden += 1
        if tag == "body" and PROBE_ATTR in a:
            self.probe = a[PROBE_ATTR]
        if a.get("href") is not None:
            self.hrefs.append(a["href"])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.text.append(data)


def parse(doc):
    p = PageParser()
    p.feed(doc)
    p.close()
    return p


def bad_words(text):
    return sorted({m.group(0) for m in BAD_WORD.finditer(text)})


def missing_links(page, hrefs):
    """Local hrefs (no scheme, no host) whose file is not there; fragments and queries are ignored."""
    missing = []
    for h in hrefs:
        u = urllib.parse.urlsplit(h.strip())
        if u.scheme or u.netloc or not u.path:
            continue
        if not (page.parent / urllib.parse.unquote(u.path)).exists():
            missing.append(h)
    return sorted(set(missing))


def with_probe(doc):
    i = doc.lower().rfind("</body>")
    return doc + PROBE if i < 0 else doc[:i] + PROBE + doc[i:]


def check_page(chromium, page, shots):
    """One page: its line's fields and the list of what is wrong with it."""
    r = {"page": page.name, "width": None, "client": None, "inner": None, "height": None, "ok_images": 0, "images": 0,
         "problems": [], "shot": None}
    source = page.read_text(encoding="utf-8", errors="replace")
    fd, probe_path = tempfile.mkstemp(prefix=".browser_check_", suffix=".html", dir=page.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(with_probe(source))
        dump = run_chromium(chromium, [f"--window-size={VIEWPORT_WIDTH},900", "--virtual-time-budget=3000", "--dump-dom"],
                            Path(probe_path))
    finally:
        os.unlink(probe_path)
    if dump is None:
        r["problems"].append(f"chromium ran past {PAGE_TIMEOUT_S} s (killed)")
    elif not dump.strip():
        r["problems"].append("chromium printed no DOM")
    # The DOM as the browser built it when there is one, else the file: links and text are checked either way.
    doc = parse(dump if dump and dump.strip() else source)
    if dump and dump.strip():
        if doc.probe is None:
            r["problems"].append("no measurements: the load event did not fire within the virtual time budget")
        else:
            m = json.loads(doc.probe)
            r.update(width=m["scroll_width"], client=m["client_width"], inner=m["inner_width"], height=m["scroll_height"],
                     images=len(m["images"]), ok_images=sum(1 for i in m["images"] if i["ok"]))
            # NOTE: clientWidth is innerWidth less a vertical scrollbar; wider than it, the page
            # scrolls sideways (innerWidth alone would let 15 px of overflow through on long pages).
            if m["scroll_width"] > m["client_width"]:
                r["problems"].append(f"wider than the viewport: scrollWidth {m['scroll_width']} px > clientWidth "
                                     f"{m['client_width']} px (innerWidth {m['inner_width']} px)")
            for n, i in enumerate(m["images"], 1):
                if not i["ok"]:
                    r["problems"].append(f"image {n} did not load: alt {i['alt']!r}, src {i['src']!r}")
    for h in missing_links(page, doc.hrefs):
        r["problems"].append(f"link to a missing file: {h}")
    words = bad_words(" ".join(doc.text))
    if words:
        r["problems"].append("visible text says " + ", ".join(words))

    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / (page.stem + ".png")
    shot.unlink(missing_ok=True)
    height = min(max(r["height"] or 900, 1), MAX_SHOT_HEIGHT)
    if run_chromium(chromium, [f"--window-size={VIEWPORT_WIDTH},{height}", "--hide-scrollbars", "--virtual-time-budget=3000",
                               f"--screenshot={shot}"], page) is None:
        r["problems"].append(f"chromium ran past {PAGE_TIMEOUT_S} s taking the screenshot (killed)")
    elif not shot.is_file() or shot.stat().st_size == 0:
        r["problems"].append("chromium wrote no screenshot")
    else:
        r["shot"] = shot
    return r


def line(r):
    width = "width ?" if r["width"] is None else f"width {r['width']}/{r['client']} (window {r['inner']})"
    height = "height ?" if r["height"] is None else f"height {r['height']}"
    result = "ok" if not r["problems"] else f"FAIL ({len(r['problems'])})"
    return f"{r['page']:<28} {width:<24} {height:<13} images {r['ok_images']}/{r['images']:<4} {result}"


def check_folder(chromium, folder, shots):
    """Checks every page of folder; prints a line per page, then the failures and screenshots. Returns the results."""
    pages = sorted(p for p in folder.glob("*.html") if not p.name.startswith("."))
    results = []
    for page in pages:
        r = check_page(chromium, page, shots)
        print(line(r), flush=True)
        results.append(r)
    for r in results:
        for why in r["problems"]:
            print(f"FAIL {r['page']}: {why}")
    for r in results:
        if r["shot"]:
            print(f"screenshot: {r['shot']}")
    return results


def run_notebooks(exe, out, bench, only):
    args = [exe, "--out", str(out), "--bench-results", bench, "--quick"]
    if only:
        args += ["--only", *map(str, only)]
    try:
        p = subprocess.run(args, capture_output=True, text=True)
    except OSError as e:
        return 127, f"ws_notebooks: error: cannot run {exe}: {e}"
    return p.returncode, p.stderr


def empty_folder(folder):
    if folder.exists() and any(folder.iterdir()) and not (folder / MARKER).exists():
        sys.exit(f"browser_check: {folder} is not empty and was not made by browser_check.py; not emptying it")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / MARKER).write_text("reports built by notebooks_cpp/tests/browser_check.py; emptied on each run\n")


def build_reports(exe, out, bench, only):
    """Builds the reports into out; returns [] or the one error that stopped ws_notebooks."""
    empty_folder(out)
    rc, err = run_notebooks(exe, out, bench, only)
    if rc == 0:
        return []
    # The pages written before the failure are still checked; the notebook that failed is named.
    started = re.findall(r"^notebook (\d+): .* \.\.\.$", err, re.MULTILINE)
    error = next((l for l in err.splitlines() if l.startswith("ws_notebooks: error:")), err.strip()[-400:])
    return [(int(started[-1]) if started else 0, error)]


def self_test(work, chromium):
    """The checker must find each fault of a bad page and none on a good one."""
    failures = []
    for text, expect in [("n/a information inferred Nancy", []), ("x = -inf, NaN; Infinity and inf.", ["-inf", "Infinity", "NaN", "inf"])]:
        if bad_words(text) != sorted(expect):
            failures.append(f"bad_words({text!r}) = {bad_words(text)}, expected {sorted(expect)}")

    empty_folder(work)
    site = work / "site"
    site.mkdir(parents=True)
    (site / "present.csv").write_text("a,b\n1,2\n")
    # A real 1x1 PNG, inlined as the reports inline theirs.
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")
    good_img = "data:image/png;base64," + base64.b64encode(png).decode()
    head = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>t</title></head><body>"
    (site / "bad.html").write_text(
        head + "<p>density NaN</p><table style=\"width:3000px\"><tr><td>wide</td></tr></table>"
        f"<img alt=\"good\" src=\"{good_img}\"><img alt=\"broken\" src=\"missing.png\">"
        "<a href=\"bad/missing.csv\">CSV</a><a href=\"present.csv#x\">CSV</a></body></html>\n")
    (site / "good.html").write_text(
        head + "<style>p{color:#222}/* NaN */</style><script>var x = NaN;</script>"
        "<p>n/a &amp; information; 1.5&nbsp;x</p>"
        f"<img alt=\"good\" src=\"{good_img}\"><a href=\"present.csv\">CSV</a><a href=\"bad.html#top\">page</a>"
        "<a href=\"https://example.org/nan.csv\">elsewhere</a></body></html>\n")
    results = {r["page"]: r for r in check_folder(chromium, site, work / "screenshots")}

    expect = {"wider than the viewport": "the 3000 px table", "image 2 did not load": "the broken <img>",
              "visible text says NaN": "the text NaN", "link to a missing file: bad/missing.csv": "the missing CSV"}
    bad = results["bad.html"]["problems"]
    for needle, what in expect.items():
        if not any(p.startswith(needle) for p in bad):
            failures.append(f"bad.html: {what} was not reported (expected '{needle}...')")
    if len(bad) != len(expect):
        failures.append(f"bad.html: {len(bad)} problems reported, expected exactly {len(expect)}: {bad}")
    if results["good.html"]["problems"]:
        failures.append(f"good.html: reported {results['good.html']['problems']}, expected none")
    if results["good.html"]["ok_images"] != 1:
        failures.append("good.html: its inlined PNG was not seen as loaded")
    for r in results.values():
        if not r["shot"]:
            failures.append(f"{r['page']}: no screenshot")
    for f in failures:
        print(f"SELF-TEST FAILED: {f}")
    if not failures:
        print("self-test: the checker reports each fault of bad.html and none on good.html")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path, help="reports folder (with --build: emptied and built into); with --self-test: work folder")
    ap.add_argument("--build", metavar="WS_NOTEBOOKS", help="build the reports first with this ws_notebooks (quick mode)")
    ap.add_argument("--bench-results", help="benchmark results folder for --build")
    ap.add_argument("--only", type=int, nargs="+", help="notebooks to build (default all)")
    ap.add_argument("--screenshots", type=Path, help="where the screenshots go (default FOLDER/screenshots)")
    ap.add_argument("--chromium", help="Chromium binary (default chromium on PATH, then /usr/bin/chromium)")
    ap.add_argument("--self-test", action="store_true", help="check the checker on a bad and a good page")
    a = ap.parse_args()
    try:
        chromium = find_chromium(a.chromium)
    except NoChromium as e:
        print(f"FAIL: {e}")
        return 1
    if a.self_test:
        return self_test(a.folder.resolve(), chromium)

    folder = a.folder.resolve()
    build_failures = []
    if a.build:
        if not a.bench_results:
            ap.error("--build needs --bench-results")
        build_failures = build_reports(a.build, folder, a.bench_results, a.only)
    if not folder.is_dir():
        print(f"FAIL: {folder} is not a folder")
        return 1
    results = check_folder(chromium, folder, (a.screenshots or folder / "screenshots").resolve())
    for n, error in build_failures:
        print(f"FAIL notebook {n} did not build: {error}" if n else f"FAIL ws_notebooks did not run: {error}")
    bad_pages = sum(1 for r in results if r["problems"])
    print(f"{len(results)} pages, {bad_pages} failing" + (f"; the build failed ({len(build_failures)} times)" if build_failures else ""))
    if not results:
        print("FAIL: no pages to check")
    return 1 if bad_pages or build_failures or not results else 0


if __name__ == "__main__":
    sys.exit(main())
