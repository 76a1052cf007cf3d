/** Customer transactions: CUSINQ inquire, CUSADD add, CUSUPD update (merge patch). */
import { mayChangeCustomer, maySeeCustomer } from '../caller.ts';
import { RC } from '../message.ts';
import { fromMinorUnits } from '../money.ts';
import type { CustomerRecord } from '../copybooks/records.ts';
import { fail, ok, text, type Program, type ProgramContext } from '../program.ts';
import {
  findCustomer,
  findCustomerByEmail,
  insertCustomer,
  nextCustomerId,
  updateCustomer,
  type Address,
  type Customer,
} from '../store/customers.ts';
import { writeAudit, writeEvent, type EventType } from '../store/journal.ts';

/** New customers start with the most careful rating until a credit check says otherwise. */
const NEW_CUSTOMER_RATING = 'C';
const NEW_CUSTOMER_CREDIT_LIMIT = 50_000;

export function customerRecord(c: Customer): CustomerRecord {
  const a = c.address;
  return {
    cusCustomerId: c.customerId,
    cusName: c.name,
    cusEmail: c.email,
    cusPhone: c.phone ?? '',
    cusBirthDate: c.birthDate ?? '',
    cusAddrPresent: a ? 'Y' : 'N',
    cusAddr: {
      cusAddrLine1: a?.line1 ?? '',
      cusAddrLine2: a?.line2 ?? '',
      cusAddrPostcode: a?.postalCode ?? '',
      cusAddrCity: a?.city ?? '',
      cusAddrCountry: a?.country ?? '',
    },
    cusRiskRating: c.riskRating,
    cusMonthlyIncome: fromMinorUnits(c.monthlyIncome),
    cusCreditLimit: fromMinorUnits(c.creditLimit),
    cusCurrencyCode: c.currency,
    cusCreatedAt: c.createdAt,
    cusUpdatedAt: c.updatedAt,
  };
}

/** The customer's event, with the record as it now is; the customer owns it, whoever onboarded them created it. */
async function raise(ctx: ProgramContext, type: EventType, c: Customer): Promise<void> {
  await writeEvent(ctx, {
    type,
    resource: 'customer',
    subject: c.customerId,
    ownerCustomerId: c.customerId,
    createdBy: c.createdBy,
    recordName: 'CUSREC',
    record: customerRecord(c),
  });
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function validDate(date: string): boolean {
  if (!DATE.test(date)) return false;
  const d = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(date) && d.getTime() < Date.now();
}

export const inquireCustomer: Program<'CUSINQ'> = async (ctx, req) => {
  const id = text(req.cuskCustomerId);
  const customer = await findCustomer(ctx.tx, id);
  if (!customer || !(await maySeeCustomer(ctx.tx, ctx.caller, customer)))
    return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', 'customer not found');
  return ok(customerRecord(customer));
};

export const addCustomer: Program<'CUSADD'> = async (ctx, req) => {
  const { tx } = ctx;
  if (ctx.caller.role === 'CUSTOMER') return fail(RC.NOT_FOUND, 'NOT_PERMITTED', 'customers cannot register others');
  const name = text(req.cusaName);
  const email = text(req.cusaEmail);
  const birthDate = text(req.cusaBirthDate);
  if (!name) return fail(RC.INVALID_INPUT, 'NAME_REQUIRED', 'name must not be blank');
  if (birthDate && !validDate(birthDate))
    return fail(RC.INVALID_INPUT, 'INVALID_BIRTH_DATE', 'dateOfBirth is not a past calendar date');
  if (await findCustomerByEmail(tx, email))
    return fail(RC.CONFLICT, 'EMAIL_ALREADY_REGISTERED', 'this e-mail address is already registered');
  const addr = req.cusaAddr;
  const address: Address | null =
    text(req.cusaAddrPresent) === 'Y'
      ? {
          line1: text(addr.cusaAddrLine1),
          ...(text(addr.cusaAddrLine2) ? { line2: text(addr.cusaAddrLine2) } : {}),
          postalCode: text(addr.cusaAddrPostcode),
          city: text(addr.cusaAddrCity),
          country: text(addr.cusaAddrCountry),
        }
      : null;
  const customer: Customer = {
    customerId: await nextCustomerId(tx),
    name,
    email,
    phone: text(req.cusaPhone) || null,
    birthDate: birthDate || null,
    address,
    riskRating: NEW_CUSTOMER_RATING,
    monthlyIncome: 0,
    creditLimit: NEW_CUSTOMER_CREDIT_LIMIT,
    currency: 'EUR',
    createdBy: ctx.caller.principal,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  await insertCustomer(tx, customer);
  await writeAudit(ctx, 'customer', customer.customerId, 'created');
  await raise(ctx, 'CustomerCreated', customer);
  return ok(customerRecord(customer));
};

/** Applies one merge-patch action: K keeps, S sets, D deletes (optional fields only). */
function patched(action: string, value: string, current: string | null): string | null | undefined {
  if (action === 'S') return value;
  if (action === 'D') return null;
  if (action === 'K' || action === '') return current;
  return undefined;
}

export const updateCustomerProgram: Program<'CUSUPD'> = async (ctx, req) => {
  const { tx } = ctx;
  const id = text(req.cusuCustomerId);
  const current = await findCustomer(tx, id, { forUpdate: true });
  if (!current || !(await maySeeCustomer(tx, ctx.caller, current)))
    return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', 'customer not found');
  if (!mayChangeCustomer(ctx.caller, id)) return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', 'customer not found');
  const name = patched(text(req.cusuNameAction), text(req.cusuName), current.name);
  const email = patched(text(req.cusuEmailAction), text(req.cusuEmail), current.email);
  const phone = patched(text(req.cusuPhoneAction), text(req.cusuPhone), current.phone);
  const birthDate = patched(text(req.cusuBirthDateAction), text(req.cusuBirthDate), current.birthDate);
  if (name === undefined || email === undefined || phone === undefined || birthDate === undefined) {
    return fail(RC.INVALID_INPUT, 'INVALID_ACTION', 'unknown patch action');
  }
  if (!name) return fail(RC.INVALID_INPUT, 'NAME_REQUIRED', 'name cannot be removed');
  if (!email) return fail(RC.INVALID_INPUT, 'EMAIL_REQUIRED', 'email cannot be removed');
  if (birthDate && !validDate(birthDate))
    return fail(RC.INVALID_INPUT, 'INVALID_BIRTH_DATE', 'dateOfBirth is not a past calendar date');
  if (email !== current.email) {
    const other = await findCustomerByEmail(tx, email);
    if (other && other.customerId !== id)
      return fail(RC.CONFLICT, 'EMAIL_ALREADY_REGISTERED', 'this e-mail address is already registered');
  }
  let address = current.address;
  const addrAction = text(req.cusuAddrAction);
  if (addrAction === 'D') address = null;
  else if (addrAction === 'S') {
    const a = req.cusuAddr;
    const part = (action: string | undefined, value: string, cur: string | undefined) =>
      patched(text(action), text(value), cur ?? null);
    const line1 = part(a.cusuAddrLine1Action, a.cusuAddrLine1, address?.line1);
    const line2 = part(a.cusuAddrLine2Action, a.cusuAddrLine2, address?.line2);
    const postalCode = part(a.cusuAddrPostcodeAction, a.cusuAddrPostcode, address?.postalCode);
    const city = part(a.cusuAddrCityAction, a.cusuAddrCity, address?.city);
    const country = part(a.cusuAddrCountryAction, a.cusuAddrCountry, address?.country);
    if (!line1 || !postalCode || !city || !country) {
      return fail(RC.INVALID_INPUT, 'ADDRESS_INCOMPLETE', 'address needs line1, postalCode, city and country');
    }
    address = { line1, ...(line2 ? { line2 } : {}), postalCode, city, country };
  }
  const updated: Customer = { ...current, name, email, phone, birthDate, address, updatedAt: ctx.now };
  await updateCustomer(tx, updated);
  await writeAudit(ctx, 'customer', id, 'updated');
  await raise(ctx, 'CustomerUpdated', updated);
  return ok(customerRecord(updated));
};
