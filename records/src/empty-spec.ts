/** A numeric item's resolved LOW-VALUES/HIGH-VALUES/spaces policy (empty.ts): the fillers that are no error. */
export interface EmptySpec {
  length: number;
  /** Filler byte → the JSON value it decodes to (null, or zero as the item decodes zero). */
  fills: Array<{ byte: number; value: null | number | string }>;
  /** The byte encode writes for JSON null; absent when null is not allowed. */
  nullByte?: number;
}
