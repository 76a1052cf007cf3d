#!/bin/sh
# Makes the files deploy/compose.yaml reads as secrets, for trying it: a throwaway PKI (a CA, the API's client
# certificate, the back-end services' server certificate), generated passwords and a webhook keyring. Production
# takes these from your own PKI and secret store instead. Usage: deploy/compose-secrets.sh [DIR]
# (default deploy/secrets, gitignored). Needs openssl. Refuses to overwrite an existing DIR.
set -eu
DIR=${1:-$(dirname "$0")/secrets}
if [ -e "$DIR" ]; then
  echo "make-secrets: $DIR exists; remove it first to make new secrets" >&2
  exit 1
fi
umask 077
mkdir -p "$DIR/ca"
cd "$DIR"

# The CA's key stays in ca/, which no service mounts.
openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days 365 \
  -subj "/CN=Corebridge compose trial CA" -keyout ca/ca.key -out ca.crt \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null

# issue NAME USAGE SANS: a P-256 key and a certificate the CA signs.
issue() {
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -subj "/CN=$1" \
    -keyout "$1.key" -out "ca/$1.csr" 2>/dev/null
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\nsubjectAltName=%s\n' \
    "$2" "$3" >"ca/$1.ext"
  openssl x509 -req -in "ca/$1.csr" -CA ca.crt -CAkey ca/ca.key -CAserial ca/ca.srl -CAcreateserial -days 365 \
    -extfile "ca/$1.ext" -out "$1.crt" 2>/dev/null
}
# The back-end services allow this client by name (BACKEND_ALLOWED_CLIENTS=corebridge-api, a SAN entry).
issue corebridge-api clientAuth DNS:corebridge-api
# One certificate for both back-end services: the API checks the host name of BACKEND_URL against its SANs.
issue corebridge-backend serverAuth DNS:backend-1,DNS:backend-2,DNS:corebridge-backend

password() { openssl rand -hex 24; }
POSTGRES=$(password)
REDIS=$(password)
RABBITMQ=$(password)
printf '%s\n' "$POSTGRES" >postgres_password
printf 'postgres://corebridge:%s@postgres:5432/corebridge\n' "$POSTGRES" >database_url
printf 'requirepass %s\n' "$REDIS" >redis.conf
printf 'redis://:%s@redis:6379\n' "$REDIS" >redis_url
printf 'default_user = corebridge\ndefault_pass = %s\n' "$RABBITMQ" >rabbitmq.conf
printf 'amqp://corebridge:%s@rabbitmq:5672\n' "$RABBITMQ" >broker_url
# The webhook keyring: key id k1, 32 random bytes. Rotation adds a new first entry (docs/events-webhooks-operations.md).
printf 'k1:%s\n' "$(openssl rand -base64 32)" >webhook_secret_key

# Compose bind-mounts each file as it is, and the services run as their own users (corebridge is uid 10001):
# the files are readable to all, inside a directory only its owner can open.
chmod 0700 .
chmod 0644 ./*.crt ./*.key ./*_url ./*.conf postgres_password webhook_secret_key
rm -f ca/*.csr ca/*.ext ca/*.srl
echo "make-secrets: wrote $(pwd)"
