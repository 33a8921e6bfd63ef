#!/usr/bin/env bash
# Install chaodipi on Raspberry Pi OS Bookworm 64-bit (Pi 4 or Pi 5) as a systemd service.
#
#   sudo deploy/install-pi.sh                 # a table (camera) — the default
#   sudo deploy/install-pi.sh --role hub      # the venue hub (+ the mosquitto broker)
#   deploy/install-pi.sh --dry-run            # print what it would do, change nothing
#
# Run it from a clone of the repository; run it again after `git pull` to update (it is
# idempotent: existing configs in /etc/chaodipi are never overwritten). What it does:
#   1. apt: python3-venv, python3-picamera2 (table), mosquitto-clients (+ mosquitto for a hub)
#   2. a system user `chaodipi` (group video for the camera)
#   3. /opt/chaodipi/venv with --system-site-packages (apt's picamera2 and libcamera stay
#      importable), the project installed into it with deploy/pi-constraints.txt (numpy<2:
#      apt's picamera2 is built against Debian's numpy 1.24)
#   4. models (models/*.onnx) → /opt/chaodipi/models, config templates → /etc/chaodipi
#   5. the systemd unit(s), a journald size limit, logrotate for optional file logs
#   6. enables the unit (starts it only with --start), prints the next steps
set -euo pipefail

ARGS=("$@")
ROLE=table
DRY_RUN=0
START=0
FORCE=0
SKIP_APT=0

APP_USER=chaodipi
PREFIX=/opt/chaodipi
VENV=$PREFIX/venv
CONF_DIR=/etc/chaodipi
DATA_DIR=/var/lib/chaodipi
LOG_DIR=/var/log/chaodipi
UNIT_DIR=/etc/systemd/system
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPLOY=$SRC/deploy

usage() {
    sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    cat <<'EOF'
Options:
  --role table|hub|both   what this Pi runs (default: table)
  --start                 start the service now (default: enable only, start after calibration)
  --skip-apt              do not run apt (offline re-runs)
  --force                 install on a system other than Bookworm 64-bit (untested)
  --dry-run               print the steps instead of running them
EOF
}

die() {
    echo "install-pi: $*" >&2
    exit 1
}

say() {
    echo "==> $*"
}

# Run a command, or print it with --dry-run.
run() {
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '+'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

while [[ $# -gt 0 ]]; do
    case $1 in
        --role)
            [[ $# -ge 2 ]] || die "--role needs table, hub or both"
            ROLE=$2
            shift 2
            ;;
        --role=*)
            ROLE=${1#--role=}
            shift
            ;;
        --start) START=1; shift ;;
        --skip-apt) SKIP_APT=1; shift ;;
        --force) FORCE=1; shift ;;
        --dry-run) DRY_RUN=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) die "unknown option $1: see --help" ;;
    esac
done

case $ROLE in
    table | hub | both) ;;
    *) die "--role $ROLE: use table, hub or both" ;;
esac
wants_table() { [[ $ROLE == table || $ROLE == both ]]; }
wants_hub() { [[ $ROLE == hub || $ROLE == both ]]; }

# ---------------------------------------------------------------- preflight

[[ -f $SRC/pyproject.toml && -f $DEPLOY/pi-constraints.txt ]] \
    || die "run me from a clone of the chaodipi repository (deploy/install-pi.sh)"
if [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
    die "run me as root: sudo $0 ${ARGS[*]}"
fi

codename=unknown
if [[ -r /etc/os-release ]]; then
    # shellcheck source=/dev/null
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
fi
arch=$(uname -m)
if [[ $codename != bookworm || $arch != aarch64 ]]; then
    msg="this is $codename on $arch; the install is made for Raspberry Pi OS Bookworm 64-bit (aarch64)"
    if [[ $FORCE -eq 1 || $DRY_RUN -eq 1 ]]; then
        echo "install-pi: warning: $msg" >&2
    elif [[ $arch != aarch64 ]]; then
        die "$msg: flash Raspberry Pi OS (64-bit) — onnxruntime has no 32-bit ARM wheels"
    else
        die "$msg: pi-constraints.txt pins numpy<2 for Bookworm's apt picamera2; --force to try"
    fi
fi

# ---------------------------------------------------------------- 1. apt

packages=(python3-venv python3-pip mosquitto-clients)
if wants_table; then
    # --no-install-recommends keeps the desktop preview (Qt, OpenGL) off a Lite image.
    packages+=(python3-picamera2)
fi
if wants_hub; then
    packages+=(mosquitto)
fi
if [[ $SKIP_APT -eq 0 ]]; then
    say "apt: ${packages[*]}"
    run apt-get update
    run apt-get install -y --no-install-recommends "${packages[@]}"
fi

# ---------------------------------------------------------------- 2. the user

say "system user $APP_USER"
if ! id "$APP_USER" >/dev/null 2>&1; then
    run useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home \
        --shell /usr/sbin/nologin "$APP_USER"
fi
if wants_table; then
    run usermod --append --groups video "$APP_USER"
fi
run install -d -o root -g root -m 0755 "$PREFIX" "$PREFIX/models"
# The config dir belongs to the service user: `chaodipi calibrate` (run as it) rewrites
# table.toml atomically there. The referee PIN is in it: not world-readable.
run install -d -o "$APP_USER" -g "$APP_USER" -m 0750 "$CONF_DIR" "$DATA_DIR" "$LOG_DIR"

# ---------------------------------------------------------------- 3. the venv

say "venv $VENV (--system-site-packages) and the project"
if [[ -f $VENV/pyvenv.cfg ]] && ! grep -qi '^include-system-site-packages *= *true' "$VENV/pyvenv.cfg"; then
    echo "install-pi: $VENV cannot see apt's picamera2: making it again" >&2
    run python3 -m venv --clear --system-site-packages "$VENV"
elif [[ ! -x $VENV/bin/python ]]; then
    run python3 -m venv --system-site-packages "$VENV"
fi
# The `pi` extra asks for picamera2, which apt's python3-picamera2 provides; if pip cannot see
# that install, installing the extra would build picamera2 and its C deps from PyPI instead.
target=$SRC
if wants_table; then
    if [[ $DRY_RUN -eq 1 ]] || "$VENV/bin/python" -c 'import importlib.metadata as m; m.version("picamera2")' 2>/dev/null; then
        target="${SRC}[pi]"
    else
        echo "install-pi: warning: pip does not see apt's picamera2; installing without [pi]" >&2
    fi
fi
run "$VENV/bin/pip" install --no-cache-dir --constraint "$DEPLOY/pi-constraints.txt" "$target"

check='import numpy, cv2, onnxruntime; print("numpy", numpy.__version__, "opencv", cv2.__version__, "onnxruntime", onnxruntime.__version__)'
if wants_table; then
    check="import picamera2; $check"
fi
if [[ $DRY_RUN -eq 0 ]]; then
    "$VENV/bin/python" -c "$check" \
        || die "the venv cannot import picamera2/numpy/cv2/onnxruntime (above): check deploy/pi-constraints.txt against \`apt policy python3-numpy\`"
fi
run ln -sfn "$VENV/bin/chaodipi" /usr/local/bin/chaodipi

# ---------------------------------------------------------------- 4. models and configs

shopt -s nullglob
models=("$SRC"/models/*.onnx "$SRC"/models/*.calibration.json)
shopt -u nullglob
if [[ ${#models[@]} -gt 0 ]]; then
    say "models: ${models[*]##*/} → $PREFIX/models"
    run install -m 0644 "${models[@]}" "$PREFIX/models/"
elif wants_table; then
    echo "install-pi: no models/*.onnx in $SRC: copy card_detector.onnx to $PREFIX/models/" >&2
fi

# Copy a template unless the config exists (never overwrite an organiser's edits).
install_config() {
    local template=$1 dest=$2
    if [[ -e $dest ]]; then
        say "kept $dest"
        return
    fi
    [[ -f $template ]] || { echo "install-pi: no $template yet: write $dest by hand" >&2; return; }
    say "config $dest (from ${template#"$SRC"/})"
    if [[ $DRY_RUN -eq 1 ]]; then
        echo "+ sed … $template > $dest"
        return
    fi
    # Absolute paths for the service: its data dir and the models installed above.
    sed -e "s|^data_dir = \"data\"|data_dir = \"$DATA_DIR\"|" \
        -e "s|^model = \"models/|model = \"$PREFIX/models/|" "$template" >"$dest.tmp"
    chown "$APP_USER:$APP_USER" "$dest.tmp"
    chmod 0640 "$dest.tmp"
    mv "$dest.tmp" "$dest"
}
if wants_table; then
    install_config "$DEPLOY/table.example.toml" "$CONF_DIR/table.toml"
fi
if wants_hub; then
    install_config "$DEPLOY/hub.example.toml" "$CONF_DIR/hub.toml"
fi

# ---------------------------------------------------------------- 5. systemd, journald, logrotate

units=()
wants_table && units+=(chaodipi-table.service)
wants_hub && units+=(chaodipi-hub.service)
say "systemd: ${units[*]}"
for unit in "${units[@]}"; do
    run install -m 0644 "$DEPLOY/$unit" "$UNIT_DIR/$unit"
done
run install -d -m 0755 /etc/systemd/journald.conf.d
run install -m 0644 "$DEPLOY/journald-chaodipi.conf" /etc/systemd/journald.conf.d/chaodipi.conf
run install -m 0644 "$DEPLOY/logrotate/chaodipi" /etc/logrotate.d/chaodipi
run systemctl daemon-reload
run systemctl restart systemd-journald
for unit in "${units[@]}"; do
    run systemctl enable "$unit"
    if [[ $START -eq 1 ]]; then
        run systemctl restart "$unit"
    fi
done

# ---------------------------------------------------------------- time sync

ntp=unknown
if command -v timedatectl >/dev/null 2>&1; then
    ntp=$(timedatectl show -p NTPSynchronized --value 2>/dev/null || echo unknown)
fi
if [[ $ntp != yes ]]; then
    echo "install-pi: the clock is not synchronised (NTPSynchronized=$ntp): play clocks depend on it —" \
        "see deploy/README.md, Time (systemd-timesyncd, or chrony with the hub as the venue's server)" >&2
fi

# ---------------------------------------------------------------- 6. next steps

cat <<EOF

Installed: $VENV (chaodipi → /usr/local/bin/chaodipi), configs in $CONF_DIR, data in $DATA_DIR.
Next steps (deploy/README.md has them in full):
EOF
if wants_table; then
    cat <<EOF
  1. Print the corner markers and tape them to the table's corners:
       chaodipi markers --out markers.pdf
  2. Edit $CONF_DIR/table.toml (table_id, rules, [table] sizes, [web] referee_pin):
       sudo -u $APP_USER nano $CONF_DIR/table.toml
  3. Calibrate with the camera (the service must not hold the camera):
       sudo systemctl stop chaodipi-table
       sudo -u $APP_USER chaodipi calibrate --config $CONF_DIR/table.toml --source picamera
  4. Check everything:
       sudo -u $APP_USER chaodipi doctor --config $CONF_DIR/table.toml
  5. Start it: sudo systemctl start chaodipi-table; journalctl -u chaodipi-table -f
EOF
fi
if wants_hub; then
    cat <<EOF
  Hub: set up the broker's users and ACL as deploy/mosquitto/chaodipi.conf says, edit
  $CONF_DIR/hub.toml (sudo -u $APP_USER nano …), then
       sudo systemctl start chaodipi-hub; journalctl -u chaodipi-hub -f
EOF
fi
