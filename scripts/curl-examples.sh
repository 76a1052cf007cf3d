#!/usr/bin/env bash
# One curl per operation against a running server (npm start), with tokens from the development
# issuer (npm run token, same DATA_DIR). Usage: bash scripts/curl-examples.sh [base-url]
# Needs curl and Node (for the JSON fields and the random keys); no uuidgen.
set -euo pipefail
BASE="${1:-http://localhost:${PORT:-8080}}"
BASE="${BASE%/}"
if ! curl -s -o /dev/null --max-time 5 "$BASE/health/live"; then
  echo "curl-examples: no server answers at $BASE. Start one with 'npm start' (PORT=… for another port)," >&2
  echo "or pass the URL of yours: bash scripts/curl-examples.sh http://localhost:9090" >&2
  exit 1
fi
# The tokens are for the server at BASE: its port, unless AUTH_ISSUER says otherwise.
PORT_OF_BASE=$(node -e 'const u=new URL(process.argv[1]);console.log(u.port||(u.protocol==="https:"?443:80))' "$BASE")
ADA=$(PORT="$PORT_OF_BASE" npm run -s token -- ada)
CLERK=$(PORT="$PORT_OF_BASE" npm run -s token -- clerk)
uuid() { node -e 'console.log(crypto.randomUUID())'; }
json() { printf '%s' "$1" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$2"; }
show() { echo; echo "\$ $1"; }

show "POST /v1/orders"
ORDER=$(curl -s -X POST "$BASE/v1/orders" -H "Authorization: Bearer $ADA" -H 'Content-Type: application/json' \
  -H "X-Request-ID: $(uuid)" \
  -d '{"customerId":"1001","productId":"P-100","quantity":2}')
echo "$ORDER"
ORDER_ID=$(json "$ORDER" orderId)

show "GET /v1/orders/$ORDER_ID"
curl -s "$BASE/v1/orders/$ORDER_ID" -H "Authorization: Bearer $ADA"; echo

show "GET /v1/orders?limit=10"
curl -s "$BASE/v1/orders?limit=10" -H "Authorization: Bearer $ADA"; echo

show "PUT /v1/orders/$ORDER_ID (If-Match)"
curl -s -X PUT "$BASE/v1/orders/$ORDER_ID" -H "Authorization: Bearer $ADA" -H 'Content-Type: application/json' \
  -H 'If-Match: "1"' -d '{"productId":"P-100","quantity":3}'; echo

show "DELETE /v1/orders/$ORDER_ID"
curl -s -X DELETE "$BASE/v1/orders/$ORDER_ID" -H "Authorization: Bearer $ADA"; echo

show "GET /v1/customers/1001"
curl -s "$BASE/v1/customers/1001" -H "Authorization: Bearer $ADA"; echo

show "POST /v1/customers (agent)"
curl -s -X POST "$BASE/v1/customers" -H "Authorization: Bearer $CLERK" -H 'Content-Type: application/json' \
  -d "{\"name\":\"Katherine Johnson\",\"email\":\"katherine.$RANDOM@example.com\",\"dateOfBirth\":\"1918-08-26\"}"; echo

show "PATCH /v1/customers/1001 (JSON merge patch)"
curl -s -X PATCH "$BASE/v1/customers/1001" -H "Authorization: Bearer $ADA" -H 'Content-Type: application/merge-patch+json' \
  -d '{"phone":"+44 20 7946 0018"}'; echo

show "GET /v1/accounts/1001-01/balance"
curl -s "$BASE/v1/accounts/1001-01/balance" -H "Authorization: Bearer $ADA"; echo

show "POST /v1/payments (Idempotency-Key; run twice: the second is a replay)"
KEY=$(uuid)
for _ in 1 2; do
  PAYMENT=$(curl -s -i -X POST "$BASE/v1/payments" -H "Authorization: Bearer $ADA" -H 'Content-Type: application/json' \
    -H "Idempotency-Key: $KEY" -d '{"debtorAccount":"1001-01","creditorAccount":"1002-01","amount":25.50,"currency":"EUR","reference":"Invoice 42"}')
  echo "$PAYMENT" | grep -i '^idempotent-replayed' || true
  echo "$PAYMENT" | tail -1
done
PAYMENT_ID=$(json "$(echo "$PAYMENT" | tail -1)" paymentId)

show "GET /v1/payments/$PAYMENT_ID"
curl -s "$BASE/v1/payments/$PAYMENT_ID" -H "Authorization: Bearer $ADA"; echo

show "POST /v1/loan-applications"
LOAN=$(curl -s -X POST "$BASE/v1/loan-applications" -H "Authorization: Bearer $ADA" -H 'Content-Type: application/json' \
  -d '{"customerId":"1001","amount":10000,"installments":24}')
echo "$LOAN"

show "GET /v1/loan-applications/$(json "$LOAN" loanId)"
curl -s "$BASE/v1/loan-applications/$(json "$LOAN" loanId)" -H "Authorization: Bearer $ADA"; echo
