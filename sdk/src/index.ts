/** @corebridge/sdk: the typed client of the Corebridge API. */
export { createCorebridgeClient, DEFAULT_TIMEOUT_MS } from './client.ts';
export type { CorebridgeClient, CorebridgeClientOptions, CorebridgeMethod, CorebridgeResult } from './client.ts';
export { CorebridgeError, CorebridgeNetworkError, CorebridgeProblemError, CorebridgeTimeoutError } from './errors.ts';
export type { CallInfo, Problem, ProblemCode, ProblemViolation } from './errors.ts';
export { DEFAULT_RETRY_OPTIONS } from './retry.ts';
export type { RetryOptions } from './retry.ts';
export { IDEMPOTENCY_KEY_OPERATIONS } from './operations.ts';
export type { components, operations, paths } from './schema.ts';
