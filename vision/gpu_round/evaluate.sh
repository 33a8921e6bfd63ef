#!/usr/bin/env bash
# Back here, after the device call: scores what round.sh brought back against the bundled pair,
# on the held-out design's stills (640 px) and the real photographs, one line each, and keeps
# the classifier read upright and turned (as the bundled one is) beside the fetched files.
# Usage: vision/gpu_round/evaluate.sh FETCHED_DIR  (the run's files_at folder, or a copy of it)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
fetched="${1:?give the folder the files of the device call came back to}"
python="${PYTHON:-$repo/.venv/bin/python}"
heldout="${HELDOUT:-out/synth_heldout_adrian640}"
real="${REAL:-$repo/../shared/data/real_cards_dev}"
new="out/gpu_round/$(date +%Y%m%d-%H%M%S)"
chaodipi() { "$python" -m chaodipi "$@"; }
for f in card_detector.onnx card_classifier.onnx; do
    if [[ ! -f "$fetched/$f" ]]; then
        echo "evaluate.sh: $fetched has no $f: the round did not finish (see its train_*.log)" >&2
        exit 1
    fi
done
mkdir -p "$new"
cp "$fetched"/* "$new/"
"$python" -c '
import sys
from pathlib import Path
from vision.train import average_onnx
c = Path(sys.argv[1]) / "card_classifier.onnx"
average_onnx([c, c], c.with_name("card_classifier_twice.onnx"), half_turned=[False, True])
' "$new"
if [[ ! -d "$heldout" ]]; then  # the held-out set of the model card
    chaodipi vision synth --n 300 --out "$heldout" --seed 3 \
        --designs adrian_kennard --split test --imgsz 640
fi
row() {  # name localiser classifier
    for set in "$heldout" "$real"; do
        chaodipi vision eval "$set" --model "$2" --classifier "$3" --json \
            --no-mistakes 2>/dev/null | "$python" -c '
import json, sys
d = json.load(sys.stdin)
p, r, ok = (d[k] for k in ("identity_precision", "identity_recall", "perfect_images"))
print(f"{p:.3f} / {r:.3f}, {ok:.3f}", end="")
'
        printf '  |  '
    done
    echo "$1"
}
echo "held-out 640 px (P / R, perfect)  |  real photos  |  pair"
row "bundled pair" models/card_detector.onnx models/card_classifier.onnx
row "new localiser + bundled classifier" "$new/card_detector.onnx" models/card_classifier.onnx
row "bundled localiser + new classifier (both ways)" models/card_detector.onnx "$new/card_classifier_twice.onnx"
row "new pair (classifier both ways)" "$new/card_detector.onnx" "$new/card_classifier_twice.onnx"
echo "kept in $new (bars: held-out ≥ 0.995 / 0.995, real ≥ 0.98 / 0.95)"
