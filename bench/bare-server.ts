/**
 * The baseline for npm run bench: bare Fastify routes with no auth, no logging and no back-end, answering
 * bodies the same size and shape as Corebridge's, so the difference is what Corebridge adds.
 */
import Fastify from 'fastify';

/** An order as GET /v1/orders/{id} returns it (same fields, same length). */
const ORDER = {
  orderId: 'ORD-9D910462994C28C3',
  status: 'CONFIRMED',
  customerId: '1001',
  productId: 'P-100',
  quantity: 1,
  amount: 49.9,
  currency: 'EUR',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** The body POST /v1/payments takes, as a route schema (validated by Fastify's Ajv, like Corebridge's). */
const PAYMENT_BODY = {
  type: 'object',
  required: ['debtorAccount', 'creditorAccount', 'amount', 'currency'],
  additionalProperties: false,
  properties: {
    debtorAccount: { type: 'string' },
    creditorAccount: { type: 'string' },
    amount: { type: 'number' },
    currency: { type: 'string' },
  },
} as const;

const app = Fastify({ logger: false });
app.get('/bare', async () => ({ ok: true }));
app.get('/bare/order', async () => ORDER);
app.post('/bare/payments', { schema: { body: PAYMENT_BODY } }, async (_request, reply) => {
  reply.code(201);
  return { paymentId: 'PAY-0000000000000000', status: 'COMPLETED' };
});
await app.listen({ port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
