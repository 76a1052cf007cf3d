/** /v1/customers: read, create, update (JSON merge patch) — CUSINQ/CUSADD/CUSUPD. */
import { Type, type Static } from 'typebox';
import { Customer, customerFromRecord } from '../../resources/customer.ts';
import { assertMayNameCustomer } from '../plugins/auth.ts';
import { problem } from '../schemas/problem.ts';
import { CustomerId } from '../../resources/schemas/common.ts';
import { recordString } from '../../resources/schemas/record-field.ts';
import type { RecordPointers } from '../../client/refusal.ts';
import type { CustomerUpdateRequest } from '../../backend/copybooks/index.ts';
import { mergePatchRoutes, patchAction } from '../merge-patch.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

const BirthDate = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' });

/** The customer's text fields; their lengths are those of the record they are written to (CUSADDI, CUSUPDI). */
function customerFields(tran: 'CUSADD' | 'CUSUPD') {
  const p = tran === 'CUSADD' ? 'cusa' : 'cusu';
  return {
    name: recordString(tran, `${p}Name`, { minLength: 1, pattern: '\\S' }),
    email: recordString(tran, `${p}Email`, { format: 'email' }),
    phone: recordString(tran, `${p}Phone`, { pattern: '^\\+?[0-9 ()-]{4,20}$' }),
    line1: recordString(tran, `${p}Addr.${p}AddrLine1`, { minLength: 1 }),
    line2: recordString(tran, `${p}Addr.${p}AddrLine2`, { minLength: 1 }),
    postalCode: recordString(tran, `${p}Addr.${p}AddrPostcode`, { minLength: 1 }),
    city: recordString(tran, `${p}Addr.${p}AddrCity`, { minLength: 1 }),
  };
}

const create = customerFields('CUSADD');
export const Address = Type.Object(
  {
    line1: create.line1,
    line2: Type.Optional(create.line2),
    postalCode: create.postalCode,
    city: create.city,
    country: Country,
  },
  { additionalProperties: false },
);

export const CustomerCreateRequest = Type.Object(
  {
    name: create.name,
    email: create.email,
    phone: Type.Optional(create.phone),
    dateOfBirth: Type.Optional(BirthDate),
    address: Type.Optional(Address),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Katherine Johnson',
        email: 'katherine@example.com',
        phone: '+1 757 555 0100',
        dateOfBirth: '1918-08-26',
        address: { line1: '1 Langley Boulevard', postalCode: '23681', city: 'Hampton', country: 'US' },
      },
    ],
  },
);
export type CustomerCreateRequest = Static<typeof CustomerCreateRequest>;

const patch = customerFields('CUSUPD');
/** RFC 7396 merge patch: a member set to null removes an optional field; absent members stay. */
export const CustomerPatch = Type.Object(
  {
    name: Type.Optional(patch.name),
    email: Type.Optional(patch.email),
    phone: Type.Optional(Type.Union([patch.phone, Type.Null()])),
    dateOfBirth: Type.Optional(Type.Union([BirthDate, Type.Null()])),
    address: Type.Optional(
      Type.Union([
        Type.Object(
          {
            line1: Type.Optional(patch.line1),
            line2: Type.Optional(Type.Union([patch.line2, Type.Null()])),
            postalCode: Type.Optional(patch.postalCode),
            city: Type.Optional(patch.city),
            country: Type.Optional(Country),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
  },
  // A new phone number, and the date of birth removed.
  { additionalProperties: false, examples: [{ phone: '+44 20 7946 0958', dateOfBirth: null }] },
);
export type CustomerPatch = Static<typeof CustomerPatch>;

/** Where each record field's value comes from in a create or a patch body. */
function customerPointers(p: 'cusa' | 'cusu'): RecordPointers {
  return {
    [`${p}Name`]: '/name',
    [`${p}Email`]: '/email',
    [`${p}Phone`]: '/phone',
    [`${p}BirthDate`]: '/dateOfBirth',
    [`${p}Addr.${p}AddrLine1`]: '/address/line1',
    [`${p}Addr.${p}AddrLine2`]: '/address/line2',
    [`${p}Addr.${p}AddrPostcode`]: '/address/postalCode',
    [`${p}Addr.${p}AddrCity`]: '/address/city',
    [`${p}Addr.${p}AddrCountry`]: '/address/country',
  };
}
const CREATE_POINTERS = customerPointers('cusa');
const PATCH_POINTERS = customerPointers('cusu');

const CustomerParams = Type.Object({ customerId: CustomerId }, { additionalProperties: false });

function patchRecord(customerId: string, p: CustomerPatch): CustomerUpdateRequest {
  const [cusuNameAction, cusuName] = patchAction(p.name);
  const [cusuEmailAction, cusuEmail] = patchAction(p.email);
  const [cusuPhoneAction, cusuPhone] = patchAction(p.phone);
  const [cusuBirthDateAction, cusuBirthDate] = patchAction(p.dateOfBirth);
  // An absent or removed address keeps (or deletes) it whole: its members are kept as they are.
  const a = p.address ?? {};
  const [cusuAddrLine1Action, cusuAddrLine1] = patchAction(a.line1);
  const [cusuAddrLine2Action, cusuAddrLine2] = patchAction(a.line2);
  const [cusuAddrPostcodeAction, cusuAddrPostcode] = patchAction(a.postalCode);
  const [cusuAddrCityAction, cusuAddrCity] = patchAction(a.city);
  const [cusuAddrCountryAction, cusuAddrCountry] = patchAction(a.country);
  return {
    cusuCustomerId: customerId,
    cusuNameAction,
    cusuName,
    cusuEmailAction,
    cusuEmail,
    cusuPhoneAction,
    cusuPhone,
    cusuBirthDateAction,
    cusuBirthDate,
    cusuAddrAction: p.address === undefined ? 'K' : p.address === null ? 'D' : 'S',
    cusuAddr: {
      cusuAddrLine1Action,
      cusuAddrLine1,
      cusuAddrLine2Action,
      cusuAddrLine2,
      cusuAddrPostcodeAction,
      cusuAddrPostcode,
      cusuAddrCityAction,
      cusuAddrCity,
      cusuAddrCountryAction,
      cusuAddrCountry,
    },
  };
}

export function customerRoutes(app: Api, { backend }: RouteDeps): void {
  app.route({
    ...fromTable('getCustomer'),
    schema: {
      ...protectedErrors(['customers'], 'getCustomer', 'Read a customer'),
      params: CustomerParams,
      response: { 200: { description: 'Success', ...Customer }, ...STANDARD_ERRORS },
    },
    handler: async (req) => {
      assertMayNameCustomer(req.principal, req.params.customerId);
      const out = await backend.call('CUSINQ', req, { cuskCustomerId: req.params.customerId });
      return customerFromRecord(out.body, req.principal?.role);
    },
  });

  app.route({
    ...fromTable('createCustomer'),
    schema: {
      ...protectedErrors(['customers'], 'createCustomer', 'Register a customer'),
      body: CustomerCreateRequest,
      response: {
        201: { description: 'Success', ...Customer },
        ...STANDARD_ERRORS,
        409: problem('The e-mail address is already registered'),
      },
    },
    handler: async (req, reply) => {
      const b = req.body;
      const out = await backend.call(
        'CUSADD',
        req,
        {
          cusaName: b.name,
          cusaEmail: b.email,
          cusaPhone: b.phone ?? '',
          cusaBirthDate: b.dateOfBirth ?? '',
          cusaAddrPresent: b.address ? 'Y' : 'N',
          cusaAddr: {
            cusaAddrLine1: b.address?.line1 ?? '',
            cusaAddrLine2: b.address?.line2 ?? '',
            cusaAddrPostcode: b.address?.postalCode ?? '',
            cusaAddrCity: b.address?.city ?? '',
            cusaAddrCountry: b.address?.country ?? '',
          },
        },
        CREATE_POINTERS,
      );
      const customer = customerFromRecord(out.body, req.principal?.role);
      return reply.code(201).header('location', `/v1/customers/${customer.customerId}`).send(customer);
    },
  });

  mergePatchRoutes(app, (scope) => {
    updateCustomerRoute(scope, backend);
  });
}

function updateCustomerRoute(app: Api, backend: RouteDeps['backend']): void {
  app.route({
    ...fromTable('updateCustomer'),
    schema: {
      ...protectedErrors(['customers'], 'updateCustomer', 'Update a customer with a JSON merge patch (RFC 7396)'),
      params: CustomerParams,
      body: CustomerPatch,
      // RFC 7396's media type first; plain JSON is taken too, with the same merge semantics.
      consumes: ['application/merge-patch+json', 'application/json'],
      response: {
        200: { description: 'Success', ...Customer },
        ...STANDARD_ERRORS,
        409: problem('The e-mail address is already registered'),
      },
    },
    handler: async (req) => {
      assertMayNameCustomer(req.principal, req.params.customerId);
      const out = await backend.call('CUSUPD', req, patchRecord(req.params.customerId, req.body), PATCH_POINTERS);
      return customerFromRecord(out.body, req.principal?.role);
    },
  });
}
