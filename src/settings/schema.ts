/**
 * How an area declares its environment settings: name, default, allowed values and a one-line description
 * beside the parser. The areas' tables make up Config (config.ts), .env.example and docs/settings.md.
 */

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, reason: string) {
    super(`invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export interface Setting<T> {
  /** The default as .env.example shows it; empty when unset or computed (the description then says what applies). */
  readonly shown: string;
  /** What values are allowed, in words, for docs/settings.md. */
  readonly allowed: string;
  /** The closed set of values, when there is one (.env.example lists it). */
  readonly choices?: readonly string[];
  readonly description: string;
  read(env: Env, name: string): T;
}

export type SettingsTable = Readonly<Record<string, Setting<unknown>>>;

/** One heading of .env.example and docs/settings.md. */
export interface SettingsSection<T extends SettingsTable = SettingsTable> {
  readonly title: string;
  readonly settings: T;
}

export function section<T extends SettingsTable>(title: string, settings: T): SettingsSection<T> {
  return { title, settings };
}

/** The parsed value of `name` in `area`, typed by its declaration. */
export function read<T extends SettingsTable, K extends keyof T & string>(
  env: Env,
  area: SettingsSection<T>,
  name: K,
): T[K] extends Setting<infer V> ? V : never {
  return area.settings[name]!.read(env, name) as T[K] extends Setting<infer V> ? V : never;
}

/** A variable counts as unset when empty, so `NAME=` in .env means the default. */
export function rawValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function isSet(env: Env, name: string): boolean {
  return rawValue(env, name) !== undefined;
}

interface Described {
  description: string;
}

export function integer(spec: Described & { default: number; min: number; max: number }): Setting<number>;
export function integer(spec: Described & { min: number; max: number }): Setting<number | undefined>;
export function integer(spec: Described & { default?: number; min: number; max: number }): Setting<number | undefined> {
  return {
    shown: spec.default === undefined ? '' : String(spec.default),
    allowed: `${spec.min}–${spec.max}`,
    description: spec.description,
    read(env, name) {
      const raw = rawValue(env, name);
      if (raw === undefined) return spec.default;
      if (!/^[0-9]+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
      const value = Number(raw);
      if (value < spec.min || value > spec.max) {
        throw new ConfigError(name, `must be between ${spec.min} and ${spec.max}, got ${raw}`);
      }
      return value;
    },
  };
}

interface TextSpec extends Described {
  default?: string;
  pattern?: RegExp;
  /** The refusal's reason when the pattern does not match; default "has an invalid value". */
  invalid?: string;
  allowed?: string;
}

/** Free text, checked against `pattern` when given. */
export function text(spec: TextSpec): Setting<string> {
  const fallback = spec.default ?? '';
  return {
    shown: fallback,
    allowed: spec.allowed ?? 'text',
    description: spec.description,
    read(env, name) {
      const raw = rawValue(env, name);
      if (raw === undefined) return fallback;
      if (spec.pattern && !spec.pattern.test(raw)) {
        throw new ConfigError(name, spec.invalid ?? `has an invalid value "${raw}"`);
      }
      return raw;
    },
  };
}

export function choice<V extends string>(values: readonly V[], spec: Described & { default: V }): Setting<V>;
export function choice<V extends string>(values: readonly V[], spec: Described): Setting<V | undefined>;
export function choice<V extends string>(
  values: readonly V[],
  spec: Described & { default?: V },
): Setting<V | undefined> {
  return {
    shown: spec.default ?? '',
    allowed: values.join(', '),
    choices: values,
    description: spec.description,
    read(env, name) {
      const raw = rawValue(env, name);
      if (raw === undefined) return spec.default;
      if (!values.includes(raw as V)) throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
      return raw as V;
    },
  };
}

/** true or false; .env.example shows the default and needs no list of the two. */
export function flag(spec: Described & { default: boolean }): Setting<boolean> {
  const values = choice(['true', 'false'], { default: spec.default ? 'true' : 'false', description: spec.description });
  return {
    shown: values.shown,
    allowed: values.allowed,
    description: spec.description,
    read: (env, name) => values.read(env, name) === 'true',
  };
}

/**
 * A value of its own format (a list, a URL, host:port): `parse` gets the variable's text, or `default` when it
 * is unset, and throws ConfigError for a bad one.
 */
interface ParsedSpec<T> extends Described {
  default?: string;
  allowed: string;
  parse(value: string, name: string): T;
}

export function parsed<T>(spec: ParsedSpec<T>): Setting<T> {
  const fallback = spec.default ?? '';
  return {
    shown: fallback,
    allowed: spec.allowed,
    description: spec.description,
    read: (env, name) => spec.parse(rawValue(env, name) ?? fallback, name),
  };
}

/** Comma- or space-separated items, empty ones dropped. */
export function listItems(value: string): string[] {
  return value.split(/[\s,]+/).filter(Boolean);
}
