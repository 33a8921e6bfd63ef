#!/usr/bin/env bash
# Make a venue's MQTT security material with openssl: the venue CA, the broker's certificate,
# a client certificate and a password for each MQTT user (the hub and every table), and each
# table's HMAC signing key. deploy/README.md ("Broker: TLS, passwords, signed events") says
# where each file goes.
#
#   deploy/make-certs.sh --broker hub.local,192.168.1.10 T01 T02 T03
#   deploy/make-certs.sh --out /root/venue --broker hub.local T04    # a table added later
#
# A table's MQTT user name is its topic slug: its table_id when that is letters, digits,
# _ . - (T01, table-7), else the slug chaodipi prints (see deploy/README.md). Files already
# in the output folder are kept, so running it again adds new tables under the same CA;
# delete a file to make it anew. Private keys, passwords and signing keys are mode 0600.
set -euo pipefail

OUT=venue-certs
DAYS=825
BROKER=""
NAME_RE='^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'

usage() {
    sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    cat <<'EOF'
Options:
  --broker HOST[,HOST…]   the broker's host names and IP addresses, as the clients write them
                          in [mqtt] host (required; they go into its certificate)
  --out DIR               where the files go (default: venue-certs)
  --days N                how long the certificates stay valid (default: 825)
Arguments: the tables' MQTT user names (the hub's user, "hub", is always made).
EOF
}

die() {
    echo "make-certs: $*" >&2
    exit 2
}

while [[ $# -gt 0 ]]; do
    case $1 in
        --broker) [[ $# -ge 2 ]] || die "--broker needs a value: --broker hub.local"; BROKER=$2; shift 2 ;;
        --out) [[ $# -ge 2 ]] || die "--out needs a folder: --out venue-certs"; OUT=$2; shift 2 ;;
        --days) [[ $# -ge 2 ]] || die "--days needs a number: --days 825"; DAYS=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        --) shift; break ;;
        -*) die "unknown option $1: see --help" ;;
        *) break ;;
    esac
done

command -v openssl >/dev/null || die "openssl is not installed: sudo apt install openssl"
[[ -n $BROKER ]] || die "--broker is missing: give the broker's host names, e.g. --broker hub.local"
[[ $DAYS =~ ^[1-9][0-9]*$ ]] || die "--days $DAYS: give a whole number of days, e.g. 825"
[[ $# -gt 0 ]] || die "name at least one table: deploy/make-certs.sh --broker hub.local T01 T02"
for name in "$@"; do
    [[ $name =~ $NAME_RE ]] || die "table $name: give its MQTT user name, the table's topic slug (letters, digits, _ . -; deploy/README.md shows how to print it)"
    [[ $name != hub ]] || die "table hub: that name is the hub's own MQTT user; rename the table"
done

umask 077
mkdir -p "$OUT"
cd "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# subjectAltName entries for the broker: IP: for addresses, DNS: for names.
san=""
IFS=',' read -r -a hosts <<<"$BROKER"
for host in "${hosts[@]}"; do
    [[ -n $host ]] || continue
    if [[ $host =~ ^[0-9.]+$ || $host == *:* ]]; then
        san+="${san:+,}IP:$host"
    else
        san+="${san:+,}DNS:$host"
    fi
done
[[ -n $san ]] || die "--broker $BROKER names no host"

if [[ ! -f ca.crt ]]; then
    cat >"$TMP/ca.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = chaodipi venue CA
[ext]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
EOF
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key 2>/dev/null
    openssl req -x509 -new -key ca.key -config "$TMP/ca.cnf" -extensions ext \
        -days "$DAYS" -out ca.crt
    chmod 0644 ca.crt
    echo "made the venue CA: $OUT/ca.crt (keep ca.key offline)"
fi
[[ -f ca.key ]] || die "$OUT/ca.crt exists without ca.key: restore ca.key, or move ca.crt away to make a new CA"

# certificate NAME USAGE [SAN]: NAME.key and NAME.crt signed by the venue CA.
certificate() {
    local name=$1 usage=$2 alt=${3:-}
    [[ -f $name.crt ]] && return 0
    {
        echo "basicConstraints = critical,CA:FALSE"
        echo "keyUsage = critical,digitalSignature,keyAgreement"
        echo "extendedKeyUsage = $usage"
        echo "subjectKeyIdentifier = hash"
        echo "authorityKeyIdentifier = keyid,issuer"
        if [[ -n $alt ]]; then echo "subjectAltName = $alt"; fi
    } >"$TMP/$name.ext"
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$name.key" 2>/dev/null
    openssl req -new -key "$name.key" -subj "/CN=$name" -out "$TMP/$name.csr"
    openssl x509 -req -in "$TMP/$name.csr" -CA ca.crt -CAkey ca.key -CAserial ca.srl \
        -CAcreateserial -days "$DAYS" -extfile "$TMP/$name.ext" -out "$name.crt" 2>/dev/null
    chmod 0644 "$name.crt"
    echo "made $OUT/$name.crt"
}

# secret FILE COMMAND…: FILE holds the command's output on its first line, unless it exists.
secret() {
    local file=$1
    shift
    [[ -f $file ]] && return 0
    "$@" >"$file"
    echo "made $OUT/$file"
}

certificate broker serverAuth "$san"
for user in hub "$@"; do
    certificate "$user" clientAuth
    secret "$user.password" openssl rand -hex 16
done
for table in "$@"; do
    secret "$table.hmac" openssl rand -hex 32
done

# The broker's password file, rebuilt from every *.password here (mosquitto_passwd hashes it).
if command -v mosquitto_passwd >/dev/null; then
    : >"$TMP/passwd"
    for file in *.password; do
        printf '%s:%s\n' "${file%.password}" "$(head -n 1 "$file")" >>"$TMP/passwd"
    done
    mosquitto_passwd -U "$TMP/passwd"
    mv "$TMP/passwd" passwd
    echo "made $OUT/passwd (the broker's password_file)"
else
    echo "mosquitto_passwd is not installed here: on the broker, run mosquitto_passwd for each *.password (deploy/README.md)"
fi
