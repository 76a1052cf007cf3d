/** The stages of a request's time budget, and the rules that charge a profile frame to one of them. */
import { fileURLToPath } from 'node:url';

/** Table order. 'event-loop I/O (native)' is matched by no rule: the CPU inside V8's (idle) samples (calibrate). */
export const STAGES = [
  'routing',
  'request id',
  'CORS',
  'security headers',
  'rate limit',
  'limits',
  'auth',
  'body parse',
  'validation',
  'idempotency',
  'handler',
  'encode',
  'transport',
  'program',
  'store',
  'decode',
  'field projection',
  'serialization',
  'log line',
  'fastify core',
  'async',
  'HTTP/socket',
  'event-loop I/O (native)',
  'GC',
  'other',
  'idle',
] as const;
export type Stage = (typeof STAGES)[number];

/** Every stage but idle: where a thread is busy. */
export const BUSY_STAGES: Stage[] = STAGES.filter((s) => s !== 'idle');

export interface Rule {
  stage: Stage;
  /** Tested on the frame's short url: `src/…`, `node_modules/<pkg>/…`, `node:…`, `(native)` or `(eval)`. */
  url?: RegExp;
  fn?: RegExp;
  /**
   * A weak rule names a layer that other stages run inside (HTTP, Fastify's hook runner, route handlers that
   * call reply.send): it applies only when no ordinary rule matches anywhere on the stack, and then the
   * weak match nearest the leaf wins.
   */
  weak?: true;
  /**
   * A boundary is a weak frame where Fastify dispatches to the next hook or handler (its hook runner, the
   * reply's send pipeline). Callback-style hooks (CORS, helmet, under-pressure) call next() synchronously,
   * so the rest of the request runs inside their frames: the walk stops at a boundary, and frames outside it
   * do not claim the sample.
   */
  boundary?: true;
  /** The stage depends on the caller: the first ancestor whose short url matches an entry decides, else `stage`. */
  within?: Array<{ url: RegExp; stage: Stage }>;
}

const EVAL = /^\(eval\)$/;
const PKG = (...names: string[]) =>
  new RegExp(`^node_modules/(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})/`);

/**
 * Ordered: a frame takes the first rule it matches. Frames no rule matches (node:buffer, node:crypto, SQLite's
 * native exec/run/get, the records runtime helpers, toad-cache…) are charged to the stage of their caller.
 */
export const RULES: Rule[] = [
  // V8's pseudo-frames
  { stage: 'idle', fn: /^\(idle\)$/ },
  { stage: 'GC', fn: /^\(garbage collector\)$/ },
  { stage: 'other', fn: /^\(program\)$/ }, // native code V8 cannot attribute to a JS frame
  // code compiled at run time (new Function): url '' with a script id
  { stage: 'encode', url: EVAL, fn: /^encode/ }, // @corebridge/records codegen: encode, encodeElement…
  { stage: 'decode', url: EVAL, fn: /^decode/ }, // @corebridge/records codegen: decode, decodeElement…
  { stage: 'validation', url: EVAL, fn: /^validate\d*$/ }, // ajv
  { stage: 'serialization', url: EVAL, fn: /^(main|anonymous\d*|anonymous)$/ }, // fast-json-stringify
  // messages: header + record (src/backend/message.ts), both sides of the transport
  { stage: 'encode', url: /^src\/backend\/message\.ts$/, fn: /^(writeMessage|headerToRecord)$/ },
  { stage: 'decode', url: /^src\/backend\/message\.ts$/, fn: /^(readHeader|headerFromRecord|text)$/ },
  { stage: 'encode', url: /^src\/backend\/calls\.ts$/, fn: /^answer$/ },
  // protection
  { stage: 'CORS', url: PKG('@fastify/cors') },
  { stage: 'CORS', url: /^src\/api\/protection\/cors\.ts$/ },
  { stage: 'security headers', url: PKG('@fastify/helmet', 'helmet') },
  { stage: 'security headers', url: /^src\/api\/protection\/security-headers\.ts$/ },
  { stage: 'rate limit', url: PKG('@fastify/rate-limit') },
  { stage: 'rate limit', url: /^src\/api\/protection\/rate-limit\.ts$/ },
  { stage: 'validation', url: /^src\/api\/protection\/limits\.ts$/, fn: /^jsonShapeViolation$/ },
  { stage: 'handler', url: /^src\/api\/protection\/limits\.ts$/, fn: /^call$/ }, // limitBackendCalls wrapper
  { stage: 'limits', url: /^src\/api\/protection\/limits\.ts$/ }, // request timer, preValidation hook
  { stage: 'limits', url: PKG('@fastify/under-pressure') },
  // identity and access
  { stage: 'request id', url: /^src\/api\/plugins\/request-id\.ts$/ },
  { stage: 'auth', url: PKG('jose') },
  { stage: 'auth', url: /^src\/(auth\/|api\/plugins\/auth\.ts$)/ },
  { stage: 'idempotency', url: /^src\/api\/(idempotency\/|plugins\/idempotency\.ts$)/ },
  { stage: 'field projection', url: /^src\/resources\/fields\.ts$/ },
  // request body and validation
  { stage: 'body parse', url: PKG('secure-json-parse') },
  { stage: 'body parse', url: /^node_modules\/fastify\/lib\/content-type-parser\.js$/, weak: true },
  { stage: 'validation', url: PKG('ajv', 'ajv-formats', '@fastify/ajv-compiler', 'fast-uri') },
  { stage: 'validation', url: /^node_modules\/fastify\/lib\/validation\.js$/ },
  // reply serialization
  { stage: 'serialization', url: PKG('fast-json-stringify', '@fastify/fast-json-stringify-compiler') },
  // serialize, not preSerializationHookEnd: onSend runs inside the latter
  { stage: 'serialization', url: /^node_modules\/fastify\/lib\/reply\.js$/, fn: /^serialize$/ },

  // log line
  {
    stage: 'log line',
    url: PKG(
      'pino',
      'sonic-boom',
      'pino-std-serializers',
      'fast-redact',
      'quick-format-unescaped',
      'on-exit-leak-free',
      'thread-stream',
      'atomic-sleep',
      'safe-stable-stringify',
      '@pinojs/redact',
    ),
  },
  { stage: 'log line', url: /^src\/(logger\.ts|logging\/|api\/logging\/|api\/plugins\/request-log\.ts)/ },
  { stage: 'log line', url: /^node_modules\/fastify\/lib\/logger[\w-]*\.js$/ },
  // back-end
  // the worker's log lines, posted to the main thread
  { stage: 'log line', url: /^src\/transport\/backend-worker\.ts$/, fn: /^write$/ },
  // post: whoever calls it (drain or write)
  { stage: 'transport', url: /^src\/transport\/backend-worker\.ts$/, fn: /^(?!post$)/ },
  { stage: 'transport', url: /^src\/transport\/(?!backend-worker)/ },
  { stage: 'transport', url: /^node:internal\/(worker|per_context\/messageport)/, weak: true },
  { stage: 'store', url: /^src\/backend\/store\// },
  // the shared SQLite wrapper (BEGIN/COMMIT, savepoints, statement cache): the idempotency records' or the back-end's
  { stage: 'store', url: /^src\/sqlite\.ts$/, within: [{ url: /^src\/api\/idempotency\//, stage: 'idempotency' }] },
  {
    stage: 'program',
    url: new RegExp(
      '^src/backend/(programs/|program[.]ts|index[.]ts|calls[.]ts|dispatch[.]ts|group-runner[.]ts' +
        '|link-coordinator[.]ts|links[.]ts|caller[.]ts|money[.]ts|loan-math[.]ts|copybooks/)',
    ),
  },
  { stage: 'decode', url: /^src\/records\//, fn: /^decode/ },
  { stage: 'encode', url: /^src\/records\//, fn: /^encode/ },
  { stage: 'handler', url: /^src\/(api\/backend|client\/[a-z-]+)\.ts$/ },
  // layers others run inside (weak)
  { stage: 'handler', url: /^src\/api\/(routes\/|plugins\/error-handler\.ts|errors\.ts)/, weak: true },
  { stage: 'routing', url: PKG('find-my-way'), weak: true }, // its callHandler runs the whole first synchronous part
  { stage: 'routing', url: /^node_modules\/fastify\/lib\/route\.js$/, weak: true },
  {
    stage: 'fastify core',
    url: /^node_modules\/fastify\/lib\/(hooks|handle-request|wrap-thenable|wrapThenable)\.js$/,
    weak: true,
    boundary: true,
  },
  {
    stage: 'fastify core',
    url: /^node_modules\/fastify\/lib\/reply\.js$/,
    fn: /^(Reply\.send|Reply\.then|onSendHook|onSendEnd|preSerializationHook\w*|wrapOnSendEnd|safeWriteHead)$/,
    weak: true,
    boundary: true,
  },
  {
    stage: 'fastify core',
    url: PKG(
      'fastify',
      'avvio',
      'light-my-request',
      'fastq',
      'abstract-logging',
      'toad-cache',
      'process-warning',
      'rfdc',
    ),
    weak: true,
  },
  {
    stage: 'HTTP/socket',
    url: /^node:(_http_\w+|http|net|internal\/(http|stream_base_commons|streams\/|js_stream_socket|net))/,
    weak: true,
  },
  { stage: 'HTTP/socket', url: /^node:stream$/, weak: true },
  { stage: 'log line', url: /^node:fs$/, weak: true }, // fs.write callbacks of the log destination (sonic-boom)
  {
    stage: 'async',
    url: /^node:(timers$|internal\/(process\/task_queues|async_hooks|async_local_storage|async_context_frame|timers))/,
    weak: true,
  },
];

export interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

/**
 * The frame's url as the rules read it. `root` is the checkout the profiled server ran from (with a trailing
 * slash): a kept run may be analysed from another checkout.
 */
export function shortUrl(frame: CallFrame, root: string): string {
  const { url, scriptId } = frame;
  if (url === '') return scriptId === '0' ? '(native)' : '(eval)';
  if (url.startsWith('node:')) return url;
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + 1);
  return path.startsWith(root) ? path.slice(root.length) : path;
}

export function matchRule(frame: CallFrame, root: string): Rule | undefined {
  const url = shortUrl(frame, root);
  return RULES.find((rule) => (!rule.url || rule.url.test(url)) && (!rule.fn || rule.fn.test(frame.functionName)));
}

/** A frame as the report names it: function, then file and line. */
export function label(frame: CallFrame, root: string): string {
  const url = shortUrl(frame, root);
  const where = url.startsWith('(') ? url : `${url}:${frame.lineNumber + 1}`;
  const name = frame.functionName || '(anonymous)';
  return `${name.length > 60 ? `${name.slice(0, 57)}...` : name} ${where}`;
}
