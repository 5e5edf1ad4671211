#!/usr/bin/env bash
# Regenerate docs/images/analyze-html.png, the README's picture of the HTML report, from the
# committed flux-hung sample. Run it after `python -m samples regenerate` or a change to the
# report's look, so the README never shows a page the current code would not print.
# Needs what scripts/setup.sh installs (.venv, chromium, a font).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# analyze exits 1 for a BLOCKED verdict, which is what this sample gives.
BUNDLE_PW=bundler-sample .venv/bin/bundler analyze samples/bundles/flux-hung.zip \
  --password-env BUNDLE_PW --format html --output "$work/report.html" || [ $? -eq 1 ]
# 1100 CSS pixels wide, scaled to 880: the README shows the top of the page at a readable size.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=0.8 \
  --window-size=1100,1180 --screenshot="$work/page.png" "file://$work/report.html" >/dev/null 2>&1
cp "$work/page.png" docs/images/analyze-html.png
echo "wrote docs/images/analyze-html.png"
