/**
 * A file or directory a setting names that cannot be read or made (DATA_DIR, TLS_CERT_FILE, a *_FILE…), said in one
 * line naming the setting: the system's error names only the path.
 */
import { isAbsolute, relative, resolve } from 'node:path';

/** The settings that name a file or a directory (not HOME, PWD and the like, which may hold the same path). */
const PATH_SETTING = /(_FILE|_DIR|_TLS_CA|_TLS_CERT|_TLS_KEY)$/;

/** The one line for a failure on a path a setting names (or DATA_DIR holds); null for any other error. */
export function settingFileFailure(
  error: unknown,
  env: Record<string, string | undefined>,
  dataDir: string,
): string | null {
  const { code, path, syscall } = (error ?? {}) as { code?: unknown; path?: unknown; syscall?: unknown };
  if (typeof code !== 'string' || typeof path !== 'string' || typeof syscall !== 'string') return null;
  const target = resolve(path);
  const named = Object.entries(env).find(
    ([name, value]) => PATH_SETTING.test(name) && value !== undefined && value !== '' && resolve(value) === target,
  );
  const inside = relative(dataDir, target);
  const setting = named?.[0] ?? (inside.startsWith('..') || isAbsolute(inside) ? null : 'DATA_DIR');
  if (setting === null) return null;
  // "ENOENT: no such file or directory, open '/x'" → "no such file or directory"
  const reason = /^[A-Z]+: ([^,]+)/.exec((error as Error).message)?.[1] ?? code;
  const subject = named ? `${setting}=${path}` : `${path} (in DATA_DIR)`;
  return `${subject}: ${reason} (${syscall}) — set ${setting} to a ${setting === 'DATA_DIR' ? 'directory this user can write' : 'file this user can read'}`;
}
