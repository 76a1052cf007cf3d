// Generated from src/backend/copybooks/*.cpy by `npm run records:types` (src/backend/copybooks/types.ts): do not edit.

/** ACCOUNT-BALANCE */
export interface AccountBalance {
  accbAccountId: string;
  accbCustomerId: string;
  accbCurrencyCode: string;
  accbBalance: number;
  accbAvailable: number;
  accbAsOf: string;
}

/** ACCOUNT-KEY */
export interface AccountKey {
  acckAccountId: string;
}

/** ACCOUNT-LIST-REQUEST */
export interface AccountListRequest {
  acclCustomerId: string;
  acclMaxItems: number;
  acclAfterSeq?: number;
}

/** CB-HEADER */
export interface CbHeader {
  hdrEyecatcher?: string;
  hdrTranCode: string;
  hdrCorrelationId: string;
  hdrCaller: {
    hdrPrincipal: string;
    hdrRole: string;
    hdrCustomerId: string;
  };
  hdrIdempotencyKey: string;
  hdrReturnCode?: number;
  hdrReasonCode: string;
  hdrReasonText: string;
  hdrTraceparent: string;
}

/** CUSTOMER-ADD-REQUEST */
export interface CustomerAddRequest {
  cusaName: string;
  cusaEmail: string;
  cusaPhone: string;
  cusaBirthDate: string;
  cusaAddrPresent?: string;
  cusaAddr: {
    cusaAddrLine1: string;
    cusaAddrLine2: string;
    cusaAddrPostcode: string;
    cusaAddrCity: string;
    cusaAddrCountry: string;
  };
}

/** CUSTOMER-KEY */
export interface CustomerKey {
  cuskCustomerId: string;
}

/** CUSTOMER-RECORD */
export interface CustomerRecord {
  cusCustomerId: string;
  cusName: string;
  cusEmail: string;
  cusPhone: string;
  cusBirthDate: string;
  cusAddrPresent: string;
  cusAddr: {
    cusAddrLine1: string;
    cusAddrLine2: string;
    cusAddrPostcode: string;
    cusAddrCity: string;
    cusAddrCountry: string;
  };
  cusRiskRating: string;
  cusMonthlyIncome: number;
  cusCreditLimit: number;
  cusCurrencyCode: string;
  cusCreatedAt: string;
  cusUpdatedAt: string;
}

/** CUSTOMER-UPDATE-REQUEST */
export interface CustomerUpdateRequest {
  cusuCustomerId: string;
  cusuNameAction?: string;
  cusuName: string;
  cusuEmailAction?: string;
  cusuEmail: string;
  cusuPhoneAction?: string;
  cusuPhone: string;
  cusuBirthDateAction?: string;
  cusuBirthDate: string;
  cusuAddrAction?: string;
  cusuAddr: {
    cusuAddrLine1Action?: string;
    cusuAddrLine1: string;
    cusuAddrLine2Action?: string;
    cusuAddrLine2: string;
    cusuAddrPostcodeAction?: string;
    cusuAddrPostcode: string;
    cusuAddrCityAction?: string;
    cusuAddrCity: string;
    cusuAddrCountryAction?: string;
    cusuAddrCountry: string;
  };
}

/** EVENT-KEY */
export interface EventKey {
  evtkEventId: string;
}

/** EVENT-LIST-REQUEST */
export interface EventListRequest {
  evtlAfterPosition?: number;
  evtlSince: string;
  evtlTypeCount?: number;
  evtlTypes: Array<{
    evtlType: string;
  }>;
  evtlMaxItems: number;
}

/** EVENT-LIST-RESPONSE */
export interface EventListResponse {
  evtoLeaseHeld: string;
  evtoLastPosition: number;
  evtoMore: string;
  evtoItemCount: number;
}

/** EVENT-RELAY-REQUEST */
export interface EventRelayRequest {
  evtnRelayId: string;
  evtnLeaseSeconds: number;
  evtnAckPosition?: number;
  evtnMaxItems: number;
}

/** EVENT-RECORD */
export interface EventRecord {
  evtPosition: number;
  evtEventId: string;
  evtEventType: string;
  evtSubject: string;
  evtOccurredAt: string;
  evtCorrelationId: string;
  evtOwnerCustomerId: string;
  evtRecordName: string;
}

/** LOAN-RULE-INPUT */
export interface LoanRuleInput {
  lndiRiskRating: string;
  lndiMonthlyIncome: number;
  lndiAmount: number;
  lndiInstallments: number;
}

/** LOAN-RULE-RESULT */
export interface LoanRuleResult {
  lndoStatus: string;
  lndoRejectReason: string;
  lndoApprovedAmount: number;
  lndoInterestRate: number;
  lndoInstallmentValue: number;
}

/** LOAN-KEY */
export interface LoanKey {
  lnkLoanId: string;
}

/** LOAN-LIST-REQUEST */
export interface LoanListRequest {
  lnlCustomerId: string;
  lnlStatusFilter: string;
  lnlMaxItems: number;
  lnlBeforeSeq?: number;
}

/** LOAN-DECISION */
export interface LoanDecision {
  lnLoanId: string;
  lnStatus: string;
  lnRejectReason: string;
  lnCustomerId: number;
  lnRequestedAmount: number;
  lnApprovedAmount: number;
  lnInterestRate: number;
  lnInstallmentValue: number;
  lnInstallments: number;
  lnCurrencyCode: string;
  lnCreatedBy: string;
  lnCreatedAt: string;
}

/** LOAN-REQUEST */
export interface LoanRequest {
  lnrqCustomerId: number;
  lnrqAmount: number;
  lnrqInstallments: number;
}

/** OPERATION-DONE */
export interface OperationDone {
  opdOperationId: string;
  opdReturnCode: number;
  opdReasonCode: string;
  opdReasonText: string;
  opdResultRecord: string;
}

/** OPERATION-KEY */
export interface OperationKey {
  opkOperationId: string;
}

/** OPERATION-CLAIM */
export interface OperationClaim {
  opnMaxItems: number;
  opnLeaseSeconds: number;
}

/** OPERATION-RECORD */
export interface OperationRecord {
  oprOperationId: string;
  oprTranCode: string;
  oprStatus: string;
  oprReturnCode: number;
  oprReasonCode: string;
  oprReasonText: string;
  oprCorrelationId: string;
  oprCreatedAt: string;
  oprCompletedAt: string;
  oprResultRecord: string;
}

/** OPERATION-SUBMIT */
export interface OperationSubmit {
  opsTranCode: string;
}

/** OPERATION-TASK */
export interface OperationTask {
  optOperationId: string;
  optTranCode: string;
  optPrincipal: string;
  optRole: string;
  optCustomerId: string;
  optIdempotencyKey: string;
  optCorrelationId: string;
  optTraceparent: string;
}

/** ORDER-CREATE-REQUEST */
export interface OrderCreateRequest {
  ordcCustomerId: string;
  ordcProductId: string;
  ordcQuantity: number;
}

/** ORDER-KEY */
export interface OrderKey {
  ordkOrderId: string;
}

/** ORDER-LIST-REQUEST */
export interface OrderListRequest {
  ordlCustomerId: string;
  ordlStatusFilter: string;
  ordlMaxItems: number;
  ordlAfterSeq?: number;
}

/** ORDER-LIST-RESPONSE */
export interface OrderListResponse {
  ordoNextSeq: number;
  ordoItemCount: number;
  ordoItem: Array<{
    ordoOrderId: string;
    ordoStatus: string;
    ordoRejectReason: string;
    ordoCustomerId: string;
    ordoProductId: string;
    ordoQuantity: number;
    ordoAmount: number;
    ordoCurrencyCode: string;
    ordoCreatedBy: string;
    ordoCreatedAt: string;
    ordoUpdatedAt: string;
    ordoVersion: number;
  }>;
}

/** ORDER-RECORD */
export interface OrderRecord {
  ordOrderId: string;
  ordStatus: string;
  ordRejectReason: string;
  ordCustomerId: string;
  ordProductId: string;
  ordQuantity: number;
  ordAmount: number;
  ordCurrencyCode: string;
  ordCreatedBy: string;
  ordCreatedAt: string;
  ordUpdatedAt: string;
  ordVersion: number;
}

/** ORDER-UPDATE-REQUEST */
export interface OrderUpdateRequest {
  orduOrderId: string;
  orduProductId: string;
  orduQuantity: number;
  orduIfMatchVersion?: number;
}

/** PAYMENT-CREATE-REQUEST */
export interface PaymentCreateRequest {
  paycDebtorAccount: string;
  paycCreditorAccount: string;
  paycAmount: number;
  paycCurrencyCode: string;
  paycRemittance: string;
}

/** PAYMENT-KEY */
export interface PaymentKey {
  paykPaymentId: string;
}

/** PAYMENT-LIST-REQUEST */
export interface PaymentListRequest {
  paylAccountId: string;
  paylStatusFilter: string;
  paylMaxItems: number;
  paylBeforeSeq?: number;
}

/** PAYMENT-RECORD */
export interface PaymentRecord {
  payPaymentId: string;
  payStatus: string;
  payRejectReason: string;
  payCustomerId: string;
  payDebtorAccount: string;
  payCreditorAccount: string;
  payAmount: number;
  payCurrencyCode: string;
  payRemittance: string;
  payCreatedBy: string;
  payCreatedAt: string;
}

/** SEGMENT-LIST-RESPONSE */
export interface SegmentListResponse {
  seglNextSeq: number;
  seglItemCount: number;
}

/** ATTEMPT-LIST-REQUEST */
export interface AttemptListRequest {
  whalSubscriptionId: string;
  whalDeliveryId: string;
  whalMaxItems: number;
  whalBeforeSeq?: number;
}

/** WEBHOOK-DELIVERY-ATTEMPT */
export interface WebhookDeliveryAttempt {
  whdaAttemptNumber: number;
  whdaAttemptedAt: string;
  whdaDurationMs: number;
  whdaStatus: number;
  whdaError: string;
  whdaResponseBody: string;
  whdaNextAttemptAt: string;
}

/** DELIVERY-TURN-REQUEST */
export interface DeliveryTurnRequest {
  whddMaxItems: number;
  whddPerEndpoint: number;
  whddLeaseSeconds: number;
  whddDisableAfterSecs?: number;
  whdrItemCount: number;
  whdrItem: Array<{
    whdrDeliveryId: string;
    whdrOutcome: string;
    whdrStatus: number;
    whdrError: string;
    whdrNextAttemptAt: string;
    whdrStartedAt: string;
    whdrDurationMs: number;
    whdrResponseBody: string;
  }>;
}

/** DELIVERY-LIST-REQUEST */
export interface DeliveryListRequest {
  whdlSubscriptionId: string;
  whdlMaxItems: number;
  whdlBeforeSeq?: number;
  whdlState?: string;
  whdlEventType?: string;
}

/** WEBHOOK-DELIVERY */
export interface WebhookDelivery {
  whdDeliveryId: string;
  whdSubscriptionId: string;
  whdEventId: string;
  whdEventType: string;
  whdState: string;
  whdAttempts: number;
  whdLastStatus: number;
  whdLastError: string;
  whdNextAttemptAt: string;
  whdCreatedAt: string;
  whdUpdatedAt: string;
}

/** DELIVERY-TASK */
export interface DeliveryTask {
  whdtDeliveryId: string;
  whdtSubscriptionId: string;
  whdtUrl: string;
  whdtSecret: string;
  whdtOwnerRole: string;
  whdtAttempts: number;
  whdtPreviousSecret: string;
}

/** WEBHOOK-CREATE-REQUEST */
export interface WebhookCreateRequest {
  whkcUrl: string;
  whkcDescription: string;
  whkcSecret: string;
  whkcEventTypeCount: number;
  whkcEventTypes: Array<{
    whkcEventType: string;
  }>;
  whkcMaxSubscriptions: number;
}

/** WEBHOOK-KEY */
export interface WebhookKey {
  whkkSubscriptionId: string;
  whkkDeliveryId: string;
}

/** WEBHOOK-LIST-REQUEST */
export interface WebhookListRequest {
  whklMaxItems: number;
  whklAfterSeq?: number;
}

/** WEBHOOK-RECOVER-REQUEST */
export interface WebhookRecoverRequest {
  whkrSubscriptionId: string;
  whkrSince: string;
  whkrUntil: string;
}

/** WEBHOOK-RECOVER-RESPONSE */
export interface WebhookRecoverResponse {
  whkoSubscriptionId: string;
  whkoSince: string;
  whkoUntil: string;
  whkoQueued: number;
  whkoRequeued: number;
  whkoCut: string;
  whkoContinueFrom: string;
}

/** WEBHOOK-SUBSCRIPTION */
export interface WebhookSubscription {
  whkSubscriptionId: string;
  whkUrl: string;
  whkDescription: string;
  whkStatus: string;
  whkDisabledReason: string;
  whkCreatedAt: string;
  whkEventTypeCount: number;
  whkEventTypes: Array<{
    whkEventType: string;
  }>;
}

/** WEBHOOK-ROTATE-REQUEST */
export interface WebhookRotateRequest {
  whkrSubscriptionId: string;
  whkrSecret: string;
  whkrOverlapSeconds: number;
  whkrExpireGiven: string;
  whkrExpireInSeconds: number;
}

/** WEBHOOK-ROTATE-RESPONSE */
export interface WebhookRotateResponse {
  whkoSubscriptionId: string;
  whkoSecretRotatedAt: string;
  whkoPreviousExpiresAt: string;
}

/** WEBHOOK-UPDATE-REQUEST */
export interface WebhookUpdateRequest {
  whkuSubscriptionId: string;
  whkuUrlAction?: string;
  whkuUrl: string;
  whkuDescriptionAction?: string;
  whkuDescription: string;
  whkuStatusAction?: string;
  whkuStatus: string;
  whkuEventTypesAction?: string;
  whkuEventTypeCount: number;
  whkuEventTypes: Array<{
    whkuEventType: string;
  }>;
}

/** Each copybook's record, by copybook name. */
export interface CopybookRecords {
  ACCBALO: AccountBalance;
  ACCKEYI: AccountKey;
  ACCLSTI: AccountListRequest;
  CBHDR: CbHeader;
  CUSADDI: CustomerAddRequest;
  CUSKEYI: CustomerKey;
  CUSREC: CustomerRecord;
  CUSUPDI: CustomerUpdateRequest;
  EVTKEYI: EventKey;
  EVTLSTI: EventListRequest;
  EVTLSTO: EventListResponse;
  EVTNXTI: EventRelayRequest;
  EVTREC: EventRecord;
  LNDECI: LoanRuleInput;
  LNDECO: LoanRuleResult;
  LOANKEYI: LoanKey;
  LOANLSTI: LoanListRequest;
  LOANREC: LoanDecision;
  LOANREQI: LoanRequest;
  OPDONEI: OperationDone;
  OPKEYI: OperationKey;
  OPNXTI: OperationClaim;
  OPREC: OperationRecord;
  OPSUBI: OperationSubmit;
  OPTASK: OperationTask;
  ORDCRTI: OrderCreateRequest;
  ORDKEYI: OrderKey;
  ORDLSTI: OrderListRequest;
  ORDLSTO: OrderListResponse;
  ORDREC: OrderRecord;
  ORDUPDI: OrderUpdateRequest;
  PAYCRTI: PaymentCreateRequest;
  PAYKEYI: PaymentKey;
  PAYLSTI: PaymentListRequest;
  PAYREC: PaymentRecord;
  SEGLSTO: SegmentListResponse;
  WHALSTI: AttemptListRequest;
  WHDAREC: WebhookDeliveryAttempt;
  WHDDUEI: DeliveryTurnRequest;
  WHDLSTI: DeliveryListRequest;
  WHDREC: WebhookDelivery;
  WHDTASK: DeliveryTask;
  WHKCRTI: WebhookCreateRequest;
  WHKKEYI: WebhookKey;
  WHKLSTI: WebhookListRequest;
  WHKRCVI: WebhookRecoverRequest;
  WHKRCVO: WebhookRecoverResponse;
  WHKREC: WebhookSubscription;
  WHKROTI: WebhookRotateRequest;
  WHKROTO: WebhookRotateResponse;
  WHKUPDI: WebhookUpdateRequest;
}
