#!/usr/bin/env bash
# One training round on a lent GPU machine, as one device call (vision/gpu_round/README.md):
# fresh synthetic data on its CPU cores, the localiser and the classifier trained on its GPU
# from the bundled baselines, both exported to ONNX into $OUT for evaluation back here.
# Nothing real and nothing of the held-out design is trained on. Sizes are set by environment:
#   SCENES (localiser scenes, 6000), CROP_SCENES (classifier scenes, 3000), LOC_MIN and CLS_MIN
#   (training minutes, 4 each, side by side on the GPU; cut to fit BUDGET_S, 540 s for the whole
#   round, so that a slow data stage never costs the exports), DEVICE (0), JOBS (nproc),
#   SEED (data seeds start here, 700), VAL_SCENES and VAL_CROP_SCENES (300, 200), PYTHON
#   (python3: the device's, which holds torch), WORK (/tmp/chaodipi-round).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
out="${OUT:?OUT names the folder whose files come back (the device tool sets it)}"
scenes="${SCENES:-6000}"
crop_scenes="${CROP_SCENES:-3000}"
loc_min="${LOC_MIN:-4}"
cls_min="${CLS_MIN:-4}"
device="${DEVICE:-0}"
jobs="${JOBS:-$(nproc)}"
seed="${SEED:-700}"
val_scenes="${VAL_SCENES:-300}"
val_crop_scenes="${VAL_CROP_SCENES:-200}"
python="${PYTHON:-python3}"
work="${WORK:-/tmp/chaodipi-round}"
budget_s="${BUDGET_S:-540}"
if [[ ! -d .gpu/card_faces ]]; then
    echo "round.sh: no .gpu/ here: run vision/gpu_round/prepare.sh first and carry .gpu" >&2
    exit 1
fi
started=$SECONDS
stamp() { echo "[$(( SECONDS - started )) s] $*"; }

# ultralytics from the carried wheels; polars only reads results.csv back into the saved
# checkpoint's metadata (inside a try), so a stub that raises there is enough.
site="$work/site"
mkdir -p "$site"
if compgen -G ".gpu/whl/*.whl" >/dev/null; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" .gpu/whl/*.whl
fi
if ! "$python" -c 'import polars' 2>/dev/null; then
    mkdir -p "$site/polars"
    printf 'def read_csv(*args, **kwargs):\n    raise RuntimeError("polars is not carried")\n' \
        >"$site/polars/__init__.py"
fi
if [[ -d .gpu/fonts/usr ]]; then
    cp -rn .gpu/fonts/usr/. /usr/ 2>/dev/null || stamp "fonts not copied into /usr (not root?)"
fi
export PYTHONPATH="$site:$repo" CHAODIPI_CARD_FACES="$repo/.gpu/card_faces" YOLO_OFFLINE=1
chaodipi() { "$python" -m chaodipi "$@"; }
"$python" -c 'import torch, ultralytics; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), "ultralytics", ultralytics.__version__)'
stamp "fonts: $("$python" -c 'from vision.faces import font_paths; print(len(font_paths()))')"

# Localiser scenes: one synth process a core, each its own seed and folder; one data.yaml
# lists them all. The recipe is the model card's (designs, table-camera scale, jokers in fans),
# the same for the validation scenes.
scene_recipe=(--imgsz 640 --designs "procedural,byron_knoll" --small-cards 0.5 --jokers 0.4)
loc="$work/loc"
rm -rf "$loc"
per=$(( (scenes + jobs - 1) / jobs ))
for k in $(seq 1 "$jobs"); do
    chaodipi vision synth --n "$per" --out "$loc/part$k" --seed $(( seed + k )) \
        "${scene_recipe[@]}" >/dev/null 2>&1 &
done
chaodipi vision synth --n "$val_scenes" --out "$loc/val" --seed "$seed" --split val \
    "${scene_recipe[@]}" >/dev/null 2>&1 &
wait
"$python" - "$loc" "$jobs" <<'PY'
import sys
from pathlib import Path

import yaml

loc, jobs = Path(sys.argv[1]), int(sys.argv[2])
first = yaml.safe_load((loc / "part1" / "data.yaml").read_text())
first.pop("path", None)
first["train"] = [str(loc / f"part{k}" / "images" / "train") for k in range(1, jobs + 1)]
first["val"] = str(loc / "val" / "images" / "val")
(loc / "data.yaml").write_text(yaml.safe_dump(first, allow_unicode=True))
PY
stamp "localiser scenes: $(find "$loc" -name '*.jpg' -o -name '*.png' | wc -l) images"

# Classifier crops: the crops command renders with one process a core itself.
crops="$work/crops"
rm -rf "$crops"
crop_recipe=(--out "$crops" --workers "$jobs" --jokers 0.3)
chaodipi vision crops --scenes "$crop_scenes" --seed $(( seed + 500 )) --text-negatives 2 \
    "${crop_recipe[@]}" >/dev/null
chaodipi vision crops --scenes "$val_crop_scenes" --seed $(( seed + 499 )) --split val \
    "${crop_recipe[@]}" >/dev/null
stamp "classifier crops: $(find "$crops" -type f | wc -l)"

# Both trainings side by side on the one GPU, each with half the cores for loading, for the
# minutes asked or what the budget leaves after 75 s for start-up and export.
half=$(( jobs / 2 > 1 ? jobs / 2 : 1 ))
left_min="$("$python" -c "print(max(0.0, ($budget_s - $(( SECONDS - started )) - 75) / 60))")"
loc_min="$("$python" -c "print(min($loc_min, $left_min))")"
cls_min="$("$python" -c "print(min($cls_min, $left_min))")"
if "$python" -c "import sys; sys.exit(0 if $left_min < 0.5 else 1)"; then  # under half a minute
    stamp "round.sh: only $left_min minutes left for training: give fewer SCENES or a larger BUDGET_S" >&2
    exit 1
fi
stamp "training $loc_min + $cls_min minutes side by side"
runs="$work/runs"
chaodipi vision train --data "$loc" --single-class --start-from models/baseline/localiser.pt \
    --imgsz 512 --batch 64 --device "$device" --workers "$half" --threads "$half" \
    --hours "$("$python" -c "print($loc_min / 60)")" --epochs 100 --lr0 0.0005 \
    --project "$runs" --name loc_gpu --fresh >"$out/train_localiser.log" 2>&1 &
loc_pid=$!
chaodipi vision train-classifier --data "$crops" --start-from models/baseline/classifier_c.pt \
    --imgsz 64 --batch 512 --device "$device" --workers "$half" --threads "$half" \
    --hours "$("$python" -c "print($cls_min / 60)")" --epochs 100 --lr0 0.0004 \
    --project "$runs" --name cls_gpu --fresh >"$out/train_classifier.log" 2>&1 &
cls_pid=$!
status=0
wait "$loc_pid" || status=1
wait "$cls_pid" || status=1
stamp "trained (status $status)"

for run in loc_gpu cls_gpu; do
    cp "$runs/$run"/*.onnx "$out/" 2>/dev/null || true
    cp "$runs/$run/weights/best.pt" "$out/$run.pt" 2>/dev/null || true
    cp "$runs/$run/results.csv" "$out/$run.results.csv" 2>/dev/null || true
done
ls -la "$out"
exit "$status"
