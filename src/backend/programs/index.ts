import type { TranCode } from '../copybooks/index.ts';
import type { Program } from '../program.ts';
import { balanceInquiry, listAccountsProgram } from './accounts.ts';
import { addCustomer, inquireCustomer, updateCustomerProgram } from './customers.ts';
import { inquireEventProgram, listEventsProgram, relayEventsProgram } from './events.ts';
import { sendTestEventProgram } from './webhook-test.ts';
import { applyForLoan, inquireLoan, listLoansProgram } from './loans.ts';
import { claimOperationsProgram, completeOperationProgram, inquireOperation, submitOperation } from './operations.ts';
import {
  createSubscription,
  dispatcherTurn,
  deleteSubscriptionProgram,
  inquireSubscription,
  listDeliveriesProgram,
  listSubscriptions,
  retryDelivery,
} from './webhooks.ts';
import { updateSubscriptionProgram } from './webhook-lifecycle.ts';
import { inquireDelivery, listAttemptsProgram } from './webhook-deliveries.ts';
import { rotateSubscriptionSecret } from './webhook-secrets.ts';
import { recoverSubscription } from './webhook-recover.ts';
import { cancelOrder, createOrder, inquireOrder, listOrdersProgram, updateOrder } from './orders.ts';
import { createPayment, inquirePayment, listPaymentsProgram } from './payments.ts';

/** Transaction code → program, each typed by its transaction's request and response copybooks. */
export const PROGRAMS: { [T in TranCode]: Program<T> } = {
  ORDCRT: createOrder,
  ORDINQ: inquireOrder,
  ORDLST: listOrdersProgram,
  ORDUPD: updateOrder,
  ORDCAN: cancelOrder,
  CUSINQ: inquireCustomer,
  CUSADD: addCustomer,
  CUSUPD: updateCustomerProgram,
  ACCBAL: balanceInquiry,
  ACCLST: listAccountsProgram,
  PAYCRT: createPayment,
  PAYINQ: inquirePayment,
  PAYLST: listPaymentsProgram,
  LNAPPL: applyForLoan,
  LNINQ: inquireLoan,
  LNLST: listLoansProgram,
  EVTLST: listEventsProgram,
  EVTNXT: relayEventsProgram,
  EVTINQ: inquireEventProgram,
  WHKCRT: createSubscription,
  WHKINQ: inquireSubscription,
  WHKLST: listSubscriptions,
  WHKDEL: deleteSubscriptionProgram,
  WHKUPD: updateSubscriptionProgram,
  WHKROT: rotateSubscriptionSecret,
  WHDLST: listDeliveriesProgram,
  WHDRTY: retryDelivery,
  WHDDUE: dispatcherTurn,
  WHDINQ: inquireDelivery,
  WHALST: listAttemptsProgram,
  WHKRCV: recoverSubscription,
  WHKTST: sendTestEventProgram,
  OPSUBM: submitOperation,
  OPINQ: inquireOperation,
  OPNXT: claimOperationsProgram,
  OPDONE: completeOperationProgram,
};
