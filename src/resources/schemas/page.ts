/**
 * A page of a list, as every list of the API answers it (GET /v1/orders and the customer's lists): `limit`
 * and `cursor` in the query, `items` and `nextCursor` in the answer.
 */
import { Type, type TSchema } from 'typebox';
import type { TranCode } from '../../backend/copybooks/index.ts';
import { recordInteger } from './record-field.ts';

/** The most items a page holds (and `limit` allows); 20 when `limit` is not given. */
export const PAGE_MAX_ITEMS = 100;

/**
 * `limit`: 1 to 100. Query values are strings (no coercion), so the schema is a pattern; the record field it
 * is written to (`path` of `tran`'s request) is asked whether it holds that range, so a narrower picture fails
 * at start-up rather than at a client. `contentSchema` names the integer the text holds: a refusal is told
 * as that range, not as the pattern.
 */
export function pageLimit(tran: TranCode, path: string) {
  const integer = recordInteger(tran, path, { minimum: 1, maximum: PAGE_MAX_ITEMS });
  return Type.Optional(
    Type.String({
      pattern: '^(100|[1-9][0-9]?)$',
      contentMediaType: 'application/json',
      contentSchema: integer,
      description: 'Page size 1–100 (default 20)',
    }),
  );
}

/** The page of `item`s: the resource's own schema, the one its single GET answers. */
export function pageOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page; null at the end',
    }),
  });
}

/** The page limit as the request record takes it. */
export function pageSizeOf(limit: string | undefined): number {
  return limit ? Number(limit) : 20;
}
