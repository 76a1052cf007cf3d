/**
 * The current time in ISO 8601 (`2026-11-24T20:23:35.931Z`), formatted once per millisecond. V8 formats
 * Date#toISOString through snprintf (0.66 µs a call here, 0.06 µs from this cache), and every request
 * asked for it twice: its log line's time and its back-end transaction's.
 */
let formattedMs = Number.NaN;
let formatted = '';

export function isoNow(): string {
  const ms = Date.now();
  if (ms !== formattedMs) {
    formattedMs = ms;
    formatted = new Date(ms).toISOString();
  }
  return formatted;
}
