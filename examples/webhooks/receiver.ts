/**
 * Example webhook receiver: verifies each delivery's Standard Webhooks signature on the raw body, answers 204
 * once the event is kept, and prints one line per new event (a repeated delivery carries the same id).
 * Run: COREBRIDGE_WEBHOOK_SECRET=whsec_… npm run webhook:receiver (PORT, default 3000; subscribe it as
 * http://127.0.0.1:<PORT>/hooks, see docs/webhooks.md).
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env['COREBRIDGE_WEBHOOK_SECRET'];
if (!secret?.startsWith('whsec_')) {
  console.error('webhook-receiver: set COREBRIDGE_WEBHOOK_SECRET to the whsec_… secret the subscription answered');
  process.exit(1);
}
const wh = new Webhook(secret);
const port = Number(process.env['PORT'] ?? 3000);
// A real receiver keeps these in its database, in the transaction that stores the event.
const seen = new Set<string>();

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let event: { id: string; type: string; subject?: string };
    try {
      // Throws on a bad signature, or a timestamp more than 5 minutes off.
      event = wh.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as typeof event;
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (!seen.has(event.id)) {
      seen.add(event.id);
      console.log(`${event.type} ${event.subject ?? ''} (${event.id})`);
    }
    res.writeHead(204).end();
  });
}).listen(port, '127.0.0.1', () => console.error(`webhook-receiver: listening on http://127.0.0.1:${port}/hooks`));
