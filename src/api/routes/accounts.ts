/** /v1/accounts/{accountId}/balance — ACCBAL. */
import { Type, type Static } from 'typebox';
import { AccountId, CurrencyCode, Money, Timestamp } from '../schemas/common.ts';
import { BALANCE_FIELDS, projectFields } from '../authorization/fields.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

export const Balance = Type.Object({
  account: AccountId,
  balance: Money,
  currency: CurrencyCode,
  availableBalance: Money,
  asOf: Timestamp,
});
export type Balance = Static<typeof Balance>;

export function accountRoutes(app: Api, { backend }: RouteDeps): void {
  app.route({
    ...fromTable('getBalance'),
    schema: {
      ...protectedErrors(['accounts'], 'getBalance', 'Read the balance of an account'),
      params: Type.Object({ accountId: AccountId }, { additionalProperties: false }),
      response: { 200: { description: 'Success', ...Balance }, ...STANDARD_ERRORS },
    },
    handler: async (req): Promise<Balance> => {
      const out = await backend.call('ACCBAL', req, { acckAccountId: req.params.accountId });
      const r = out.body;
      const balance: Balance = {
        account: r.accbAccountId,
        balance: r.accbBalance,
        currency: r.accbCurrencyCode,
        availableBalance: r.accbAvailable,
        asOf: r.accbAsOf,
      };
      // projected like every resource; partners have no balance access (route table and field list)
      return projectFields(balance, BALANCE_FIELDS, req.principal?.role) as Balance;
    },
  });
}
