/**
 * /v1/accounts/{accountId}/balance — ACCBAL; /v1/customers/{customerId}/accounts — ACCLST, each account as its balance.
 */
import { Type } from 'typebox';
import type { MessageCatalog } from '../../backend/copybooks/index.ts';
import { segmentReader } from '../../backend/message.ts';
import { AccountList, Balance, balanceFromRecord } from '../../resources/account.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import { assertMayNameCustomer } from '../plugins/auth.ts';
import { AccountId, CustomerId } from '../../resources/schemas/common.ts';
import { pageLimit, pageSizeOf } from '../../resources/schemas/page.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

const AccountListQuery = Type.Object(
  { limit: pageLimit('ACCLST', 'acclMaxItems'), cursor: CursorParam('Opaque cursor from `nextCursor`') },
  { additionalProperties: false },
);

const cursor = cursorCodec('a', 'cursor');

export function accountRoutes(app: Api, { backend, catalog }: RouteDeps & { catalog: MessageCatalog }): void {
  app.route({
    ...fromTable('getBalance'),
    schema: {
      ...protectedErrors(['accounts'], 'getBalance', 'Read the balance of an account'),
      params: Type.Object({ accountId: AccountId }, { additionalProperties: false }),
      response: { 200: { description: 'Success', ...Balance }, ...STANDARD_ERRORS },
    },
    handler: async (req): Promise<Balance> => {
      const out = await backend.call('ACCBAL', req, { acckAccountId: req.params.accountId });
      return balanceFromRecord(out.body, req.principal?.role);
    },
  });

  app.route({
    ...fromTable('listCustomerAccounts'),
    schema: {
      ...protectedErrors(
        ['accounts'],
        'listCustomerAccounts',
        "A customer's accounts with their balances, in opening order",
      ),
      params: Type.Object({ customerId: CustomerId }, { additionalProperties: false }),
      querystring: AccountListQuery,
      response: { 200: { description: 'Success', ...AccountList }, ...STANDARD_ERRORS },
    },
    handler: async (req) => {
      assertMayNameCustomer(req.principal, req.params.customerId);
      const out = await backend.call('ACCLST', req, {
        acclCustomerId: req.params.customerId,
        acclMaxItems: pageSizeOf(req.query.limit),
        acclAfterSeq: req.query.cursor ? cursor.decode(req.query.cursor) : 0,
      });
      const read = segmentReader(catalog, out.segments);
      const next = out.body.seglNextSeq;
      return {
        items: Array.from({ length: out.body.seglItemCount }, () =>
          balanceFromRecord(read('ACCBALO'), req.principal?.role),
        ),
        nextCursor: next > 0 ? cursor.encode(next) : null,
      };
    },
  });
}
