#!/usr/bin/env bash
# Packs what a lent GPU machine lacks into .gpu/ (ignored by git; name it in the device tool's
# `carry`): the ultralytics wheels, the training deck art and this machine's index fonts.
# Run here, from anywhere in the checkout, before the one device call (vision/gpu_round/README.md).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
python="${PYTHON:-$repo/.venv/bin/python}"
font_cap_mb="${FONT_CAP_MB:-6}"
faces="${CHAODIPI_CARD_FACES:-$repo/../shared/data/card_faces}"

if [[ ! -x "$python" ]]; then
    echo "prepare.sh: no Python at $python: install the train extra first (see README.md)" >&2
    exit 1
fi
if [[ ! -d "$faces" ]]; then
    echo "prepare.sh: no deck art at $faces: set CHAODIPI_CARD_FACES to the card_faces folder" >&2
    exit 1
fi
rm -rf .gpu
mkdir -p .gpu/whl .gpu/card_faces .gpu/fonts

# The device's Python is 3.12 with torch, torchvision, OpenCV, onnx and onnxruntime already;
# ultralytics, its two small helpers and onnxslim (the export simplifies) travel as wheels, at
# the versions used here.
# polars (54 MB, over the carry budget) is left out: round.sh shims the one call that uses it.
version() { "$python" -m pip show "$1" | sed -n 's/^Version: //p'; }
"$python" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 \
    -d .gpu/whl "ultralytics==$(version ultralytics)" \
    "ultralytics-thop==$(version ultralytics-thop)" \
    "ultralytics-platform==$(version ultralytics-platform)" "onnxslim==$(version onnxslim)"

# Only the pictures the scenes load (png_500w); the held-out design travels for its eval only.
cp "$faces/README.md" .gpu/card_faces/ 2>/dev/null || true
for design in "$faces"/*/; do
    name="$(basename "$design")"
    mkdir -p ".gpu/card_faces/$name"
    cp -r "$design/png_500w" ".gpu/card_faces/$name/"
done

# The index fonts this machine draws with, smallest first, up to the cap (the carry budget);
# round.sh puts them back at the same paths, where vision.faces looks for them.
total=0
while IFS=$'\t' read -r size path; do
    if (( total + size > font_cap_mb * 1000000 )); then
        break
    fi
    mkdir -p ".gpu/fonts$(dirname "$path")"
    cp "$path" ".gpu/fonts$path"
    total=$(( total + size ))
done < <("$python" -c '
import os
from vision.faces import font_paths
rows = sorted((os.path.getsize(p), p) for p in font_paths() if p.startswith("/usr/share/fonts/"))
print("\n".join(f"{s}\t{p}" for s, p in rows))
')
echo "prepare.sh: .gpu/ holds $(du -sh .gpu | cut -f1) ($(find .gpu/fonts -type f | wc -l) fonts);" \
    "the tracked tree is $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) bytes of the 64 MiB"
