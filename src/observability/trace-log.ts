/**
 * The ids of a traceparent as log fields (`trace_id`, `span_id`, OpenTelemetry's names for them in logs).
 * Kept apart from trace-context.ts so the back-end, which only reads the header's traceparent, loads
 * nothing of OpenTelemetry.
 */

/** The ids a version-00 traceparent names; none for an empty (or blank) one. */
export function traceLogFields(traceparent: string): { trace_id: string; span_id: string } | undefined {
  // Fixed positions in version 00: 00-<32 hex trace id>-<16 hex span id>-<flags>.
  return traceparent.length >= 55 && traceparent.charCodeAt(2) === 45
    ? { trace_id: traceparent.slice(3, 35), span_id: traceparent.slice(36, 52) }
    : undefined;
}
