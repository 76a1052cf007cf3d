#!/usr/bin/env bash
# One curl for every operation of the contract against a running server (npm start), with tokens from the
# development issuer (npm run token, same DATA_DIR). Usage: bash scripts/curl-examples.sh [base-url]
# The webhook calls need a server that lets a local receiver in (docs/webhooks.md):
#   WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOWED_CIDRS=127.0.0.1/32 WEBHOOK_ALLOWED_PORTS=3000 npm start
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
# A field of a JSON answer; a dotted path (items.0.deliveryId) reaches into objects and arrays.
json() { printf '%s' "$1" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(process.argv[1].split(".").reduce((v,k)=>v?.[k],JSON.parse(s))??""))' "$2"; }
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

show "GET /v1/customers/1001/accounts"
curl -s "$BASE/v1/customers/1001/accounts" -H "Authorization: Bearer $ADA"; echo

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

show "GET /v1/payments?accountId=1001-01&limit=2 (the account's statement)"
curl -s "$BASE/v1/payments?accountId=1001-01&limit=2" -H "Authorization: Bearer $ADA"; echo

show "POST /v1/payments with Prefer: respond-async (202 and an operation to poll)"
ACCEPTED=$(curl -s -i -X POST "$BASE/v1/payments" -H "Authorization: Bearer $ADA" -H 'Content-Type: application/json' \
  -H "Idempotency-Key: $(uuid)" -H 'Prefer: respond-async' \
  -d '{"debtorAccount":"1001-01","creditorAccount":"1002-01","amount":5,"currency":"EUR","reference":"Later"}')
echo "$ACCEPTED" | head -1
OPERATION=$(echo "$ACCEPTED" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')

show "GET $OPERATION"
curl -s "$BASE$OPERATION" -H "Authorization: Bearer $ADA"; echo

show "POST /v1/loan-applications"
LOAN=$(curl -s -X POST "$BASE/v1/loan-applications" -H "Authorization: Bearer $ADA" -H 'Content-Type: application/json' \
  -d '{"customerId":"1001","amount":10000,"installments":24}')
echo "$LOAN"

show "GET /v1/loan-applications/$(json "$LOAN" loanId)"
curl -s "$BASE/v1/loan-applications/$(json "$LOAN" loanId)" -H "Authorization: Bearer $ADA"; echo

show "GET /v1/loan-applications (a customer's own, newest first)"
curl -s "$BASE/v1/loan-applications" -H "Authorization: Bearer $ADA"; echo

show "GET /v1/events?limit=3 (the events feed; read on with cursor=<nextCursor>)"
EVENTS=$(curl -s "$BASE/v1/events?limit=3" -H "Authorization: Bearer $CLERK")
echo "$EVENTS"
show "GET /v1/events?limit=3&cursor=$(json "$EVENTS" nextCursor)"
curl -s "$BASE/v1/events?limit=3&cursor=$(json "$EVENTS" nextCursor)" -H "Authorization: Bearer $CLERK"; echo
show "GET /v1/events?type=OrderConfirmed,OrderCancelled&since=2026-01-01T00:00:00Z&limit=3 (types, since)"
curl -s "$BASE/v1/events?type=OrderConfirmed,OrderCancelled&since=2026-01-01T00:00:00Z&limit=3" \
  -H "Authorization: Bearer $CLERK"; echo
show "GET /v1/events/$(json "$EVENTS" items.0.id) (one event, by the feed's rule)"
curl -s "$BASE/v1/events/$(json "$EVENTS" items.0.id)" -H "Authorization: Bearer $CLERK"; echo
echo
echo "# GET /v1/event-types (public, no token): each type's description, data schema and example; the types:"
curl -s "$BASE/v1/event-types" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).items.map(i=>i.type).join(" ")))'

# Webhooks: a subscription to a local receiver. Nothing needs to listen there: a delivery that finds no
# receiver stays pending and is tried again on the schedule.
RECEIVER="${WEBHOOK_RECEIVER:-http://127.0.0.1:3000/hooks}"
show "POST /v1/webhook-subscriptions (agent; url $RECEIVER)"
SUBSCRIPTION=$(curl -s -X POST "$BASE/v1/webhook-subscriptions" -H "Authorization: Bearer $CLERK" \
  -H 'Content-Type: application/json' -d "{\"url\":\"$RECEIVER\",\"eventTypes\":[\"OrderConfirmed\"],\"description\":\"curl examples\"}")
echo "$SUBSCRIPTION"
# A run before that stopped half-way left it there: the 409 (SUBSCRIPTION_EXISTS) names it as subscriptionId too.
SUBSCRIPTION_ID=$(json "$SUBSCRIPTION" subscriptionId)
if [ -z "$SUBSCRIPTION_ID" ]; then
  echo "curl-examples: the server refused the local receiver; to try webhooks, start it with" >&2
  echo "  WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOWED_CIDRS=127.0.0.1/32 WEBHOOK_ALLOWED_PORTS=3000 npm start" >&2
  exit 0
fi

show "GET /v1/webhook-subscriptions?limit=10 (oldest first; read on with cursor=<nextCursor>)"
curl -s "$BASE/v1/webhook-subscriptions?limit=10" -H "Authorization: Bearer $CLERK"; echo

show "GET /v1/webhook-subscriptions/$SUBSCRIPTION_ID (never the secret)"
curl -s "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID" -H "Authorization: Bearer $CLERK"; echo

# A new secret, shown once (masked here); the old one still signs, beside it, for the hour asked.
show "POST /v1/webhook-subscriptions/$SUBSCRIPTION_ID/rotate-secret (the old secret signs for one more hour)"
curl -s -X POST "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID/rotate-secret" -H "Authorization: Bearer $CLERK" \
  -H 'Content-Type: application/json' -d '{"expireCurrentIn":3600}' | sed 's/"whsec_[^"]*"/"whsec_..."/'; echo

curl -s -o /dev/null -X POST "$BASE/v1/orders" -H "Authorization: Bearer $ADA" -H 'Content-Type: application/json' \
  -d '{"customerId":"1001","productId":"P-100","quantity":1}'
show "GET /v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries (the order just placed)"
DELIVERY_ID=""
for _ in $(seq 1 50); do
  DELIVERIES=$(curl -s "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries" -H "Authorization: Bearer $CLERK")
  DELIVERY_ID=$(json "$DELIVERIES" items.0.deliveryId)
  [ -n "$DELIVERY_ID" ] && break
  sleep 0.2
done
echo "$DELIVERIES"

show "GET /v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries?state=pending&eventType=OrderConfirmed"
curl -s "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries?state=pending&eventType=OrderConfirmed" \
  -H "Authorization: Bearer $CLERK"; echo

show "GET /v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries/$DELIVERY_ID"
curl -s "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries/$DELIVERY_ID" -H "Authorization: Bearer $CLERK"; echo

show "GET /v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries/$DELIVERY_ID/attempts (newest first)"
curl -s "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries/$DELIVERY_ID/attempts" \
  -H "Authorization: Bearer $CLERK"; echo

show "POST /v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries/$DELIVERY_ID/retry (due now)"
curl -s -X POST "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID/deliveries/$DELIVERY_ID/retry" \
  -H "Authorization: Bearer $CLERK"; echo

show "PATCH /v1/webhook-subscriptions/$SUBSCRIPTION_ID (merge patch: paused; its pending deliveries are cancelled)"
curl -s -X PATCH "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID" -H "Authorization: Bearer $CLERK" \
  -H 'Content-Type: application/merge-patch+json' -d '{"status":"disabled"}'; echo
show "PATCH /v1/webhook-subscriptions/$SUBSCRIPTION_ID (active again, with no description)"
curl -s -X PATCH "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID" -H "Authorization: Bearer $CLERK" \
  -H 'Content-Type: application/merge-patch+json' -d '{"status":"active","description":null}'; echo
SINCE=$(node -e 'console.log(new Date(Date.now() - 3600_000).toISOString())')
show "POST /v1/webhook-subscriptions/$SUBSCRIPTION_ID/recover (the last hour's events again)"
curl -s -X POST "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID/recover" -H "Authorization: Bearer $CLERK" \
  -H 'Content-Type: application/json' -d "{\"since\":\"$SINCE\"}"; echo
show "POST /v1/webhook-subscriptions/$SUBSCRIPTION_ID/test (a WebhookTest to this subscription only)"
curl -s -X POST "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID/test" -H "Authorization: Bearer $CLERK"; echo

show "DELETE /v1/webhook-subscriptions/$SUBSCRIPTION_ID"
curl -s -o /dev/null -w '%{http_code}\n' -X DELETE "$BASE/v1/webhook-subscriptions/$SUBSCRIPTION_ID" \
  -H "Authorization: Bearer $CLERK"
