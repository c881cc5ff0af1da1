"""The README's first screen as a visitor to the repository's page sees it: README.md rendered by
cmark-gfm (GitHub's Markdown) with GitHub-like type, screenshotted by headless Chromium at
1000×1100. Not part of `make test` (Chromium is large): `apt install chromium cmark-gfm`, then

  /usr/bin/python3 Tests/E2E/tools/readme_screen.py OUT.png
"""
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
STYLE = """body{font-family:"Noto Sans",Helvetica,Arial,sans-serif;max-width:880px;margin:24px auto;padding:0 32px;
color:#1f2328;line-height:1.5;font-size:16px}h1,h2{border-bottom:1px solid #d1d9e0;padding-bottom:.3em}
pre{background:#f6f8fa;padding:16px;border-radius:6px;font-size:85%}code{font-family:monospace;background:#eff1f3;
padding:.2em .4em;border-radius:6px;font-size:85%}pre code{background:none;padding:0}table{border-collapse:collapse}
td,th{border:1px solid #d1d9e0;padding:6px 13px}a{color:#0969da;text-decoration:none}"""


def main(out):
    body = subprocess.run(["cmark-gfm", "--unsafe", "-e", "table", str(ROOT / "README.md")],
                          capture_output=True, text=True, check=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".html", dir=ROOT / ".build", delete=False) as f:
        f.write(f'<!doctype html><meta charset="utf-8"><base href="{ROOT.as_uri()}/"><style>{STYLE}</style>{body}')
    try:
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1000,1100", f"--screenshot={Path(out).resolve()}", Path(f.name).as_uri()],
                       check=True, capture_output=True)
    finally:
        Path(f.name).unlink()


if __name__ == "__main__":
    main(sys.argv[1])
