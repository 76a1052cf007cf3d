/**
 * `req.log` without a pino child logger per request: the child (with the request id bound) is made on
 * first use. Most requests write only their one line, which the request-log hook writes through the
 * root logger with the request id in it, so they never pay for a child.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

class LazyChildLogger {
  private made: FastifyBaseLogger | undefined;
  private readonly root: FastifyBaseLogger;
  private readonly bindings: Bindings;
  private readonly options: ChildLoggerOptions;

  constructor(root: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.root = root;
    this.bindings = bindings;
    this.options = options;
  }

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.root.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.root.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: Parameters<FastifyBaseLogger['fatal']>): void {
    this.logger.fatal(...args);
  }

  error(...args: Parameters<FastifyBaseLogger['error']>): void {
    this.logger.error(...args);
  }

  warn(...args: Parameters<FastifyBaseLogger['warn']>): void {
    this.logger.warn(...args);
  }

  info(...args: Parameters<FastifyBaseLogger['info']>): void {
    this.logger.info(...args);
  }

  debug(...args: Parameters<FastifyBaseLogger['debug']>): void {
    this.logger.debug(...args);
  }

  trace(...args: Parameters<FastifyBaseLogger['trace']>): void {
    this.logger.trace(...args);
  }

  silent(...args: Parameters<FastifyBaseLogger['silent']>): void {
    this.logger.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

export function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
