/** A real OTLP/HTTP receiver for tests: collects the JSON the trace exporter POSTs to /v1/traces. */
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { TestContext } from 'node:test';
import { freePort } from '../../support/free-port.ts';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  status?: { code?: number };
  /** The span's resource attributes (service.name, ...). */
  resource: Record<string, string | number | boolean | undefined>;
}

function attributes(list: Array<{ key: string; value: OtlpValue }> = []): ReceivedSpan['attributes'] {
  const valueOf = (value: OtlpValue) =>
    value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue);
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}

export async function startOtlpReceiver(t: TestContext): Promise<{ endpoint: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      type Attributes = Array<{ key: string; value: OtlpValue }>;
      type SentSpan = Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: Attributes };
      const payload = JSON.parse(body.toString('utf8')) as {
        resourceSpans: Array<{ resource?: { attributes?: Attributes }; scopeSpans: Array<{ spans: SentSpan[] }> }>;
      };
      for (const rs of payload.resourceSpans) {
        const resource = attributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans) {
          for (const span of ss.spans) spans.push({ ...span, attributes: attributes(span.attributes), resource });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { endpoint: `http://127.0.0.1:${port}`, spans };
}
