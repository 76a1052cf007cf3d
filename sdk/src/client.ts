/**
 * The typed Corebridge client: openapi-fetch over the generated contract types, with a careful caller's habits
 * built in (a time-out per attempt, retries only of what is safe to repeat, an Idempotency-Key per logical call).
 * `GET/POST/PUT/PATCH/DELETE` answer the typed body of a 2xx and throw a typed error otherwise; `raw` is the
 * plain openapi-fetch client (`{ data, error, response }`) with the same time-outs, keys and retries.
 */
import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import { CorebridgeProblemError, type CallInfo } from './errors.ts';
import { IDEMPOTENCY_KEY_OPERATIONS } from './operations.ts';
import { callInfoOf, resilientFetch, type FetchLike } from './resilient-fetch.ts';
import { DEFAULT_RETRY_OPTIONS, parseRetryAfter, type RetryOptions } from './retry.ts';
import type { paths } from './schema.ts';

export interface CorebridgeClientOptions {
  /** Where the API is, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** A bearer token for every call… */
  token?: string | undefined;
  /** …or a function asked for one before every attempt (to refresh an expiring token). */
  getToken?: (() => string | undefined | Promise<string | undefined>) | undefined;
  /** Time-out of each attempt, in milliseconds; default 5000. Pass `signal` to bound the whole call. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt and their back-off; `{ max: 0 }` turns retries off. */
  retries?: Partial<RetryOptions> | undefined;
  /** The fetch to send with (default: the global fetch). */
  fetch?: FetchLike | undefined;
  /** Headers sent on every call. */
  headers?: Record<string, string> | undefined;
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Paths<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- {} extends Pick<T, K> exactly when K is optional
type RequiredKeysOf<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
/** The call's options: required when the operation has required parameters or a required body (as in openapi-fetch). */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
/** Every key of every member of a union (`keyof` of a union has only the keys common to all). */
type KeysOf<T> = T extends unknown ? keyof T : never;
type ValueAt<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;
/**
 * `T` (what the caller wrote) with every field the contract does not name turned into `never`, at any depth. The
 * options are inferred (`Init`), and an inferred type escapes TypeScript's excess-property check, so without this a
 * body with a misspelt or unknown field would compile and the server would refuse it (additionalProperties: false).
 */
type Exact<T, Shape> = T extends readonly unknown[]
  ? Shape extends readonly (infer Item)[]
    ? { [I in keyof T]: Exact<T[I], Item> }
    : T
  : T extends object
    ? Shape extends object
      ? { [K in keyof T]: K extends KeysOf<Shape> ? Exact<T[K], ValueAt<Shape, K>> : never }
      : T
    : T;
/** The options with their body held to the contract's body of the operation. */
type ExactBody<Init, Expected> = Init extends { body: infer Body }
  ? Init & { body: Exact<Body, NonNullable<Expected> extends { body?: infer Want } ? Want : never> }
  : Init;
/** The body of the operation's 2xx answers. */
type SuccessData<P extends keyof paths, M extends Method, Init> = paths[P][M] extends infer Operation extends Record<
  string | number,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- openapi-fetch's FetchResponse constrains to any
  any
>
  ? Extract<FetchResponse<Operation, Init, `${string}/${string}`>, { error?: never }>['data']
  : never;

/** A 2xx answer. */
export interface CorebridgeResult<T> {
  data: T;
  status: number;
  response: Response;
  /** X-Request-ID of the answer: quote it to support, search the logs with it. */
  requestId: string | undefined;
  /** Idempotent-Replayed: this is the stored answer of an earlier attempt with the same Idempotency-Key. */
  replayed: boolean;
  /** The Idempotency-Key the call carried, when it had one. */
  idempotencyKey: string | undefined;
  attempts: number;
}

export type CorebridgeMethod<M extends Method> = <P extends Paths<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: InitParam<ExactBody<Init, MaybeOptionalInit<paths[P], M>>>
) => Promise<CorebridgeResult<SuccessData<P, M, Init>>>;

export interface CorebridgeClient {
  GET: CorebridgeMethod<'get'>;
  POST: CorebridgeMethod<'post'>;
  PUT: CorebridgeMethod<'put'>;
  PATCH: CorebridgeMethod<'patch'>;
  DELETE: CorebridgeMethod<'delete'>;
  /** The openapi-fetch client underneath: `{ data, error, response }` instead of throwing on a problem. */
  raw: Client<paths>;
}

export const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * Sets what belongs to the logical call, once, before the first attempt: an Idempotency-Key on the operations
 * that take one (unless the caller gave theirs), and an X-Request-ID (unless the caller gave theirs), so every
 * attempt of the call, and an error after the last, names the same request in the service's logs.
 */
const callIdentity: Middleware = {
  onRequest({ request, schemaPath }) {
    if (IDEMPOTENCY_KEY_OPERATIONS[`${request.method} ${schemaPath}`] && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    if (!request.headers.has('x-request-id')) request.headers.set('x-request-id', crypto.randomUUID());
    return request;
  },
};

export function createCorebridgeClient(options: CorebridgeClientOptions): CorebridgeClient {
  const { token, getToken = token === undefined ? undefined : () => token } = options;
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.headers ? { headers: options.headers } : {}),
    fetch: resilientFetch({
      fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retries: { ...DEFAULT_RETRY_OPTIONS, ...options.retries },
      ...(getToken ? { getToken } : {}),
    }),
  });
  raw.use(callIdentity);

  // One untyped path for the five methods; each is given its typed signature below.
  // openapi-fetch's request is generic over paths; here it is called with a method and path chosen at run time
  // eslint-disable-next-line no-restricted-syntax -- the comment above says why
  const send = raw.request as unknown as (
    method: string,
    url: string,
    init?: unknown,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const call = async (method: string, url: string, init: unknown): Promise<CorebridgeResult<unknown>> => {
    const { data, error, response } = await send(method, url, init);
    const info: CallInfo = callInfoOf(response) ?? {
      method,
      url,
      requestId: undefined,
      idempotencyKey: undefined,
      attempts: 1,
    };
    if (!response.ok)
      throw new CorebridgeProblemError(response, error, info, parseRetryAfter(response.headers.get('retry-after')));
    return {
      data,
      status: response.status,
      response,
      requestId: response.headers.get('x-request-id') ?? info.requestId,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      idempotencyKey: info.idempotencyKey,
      attempts: info.attempts,
    };
  };
  const method = <M extends Method>(name: M) =>
    // one untyped function serves every typed method; the types come from the contract
    // eslint-disable-next-line no-restricted-syntax -- the comment above says why
    ((url: string, init?: unknown) => call(name.toUpperCase(), url, init)) as unknown as CorebridgeMethod<M>;
  return {
    GET: method('get'),
    POST: method('post'),
    PUT: method('put'),
    PATCH: method('patch'),
    DELETE: method('delete'),
    raw,
  };
}
