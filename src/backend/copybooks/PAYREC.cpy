      * PAYREC   PAYMENT RECORD: RESPONSE OF PAYCRT AND PAYINQ.
       01  PAYMENT-RECORD.
           05  PAY-PAYMENT-ID          PIC X(20).
           05  PAY-STATUS              PIC X(10).
               88  PAY-COMPLETED                  VALUE 'COMPLETED'.
               88  PAY-REJECTED                   VALUE 'REJECTED'.
           05  PAY-REJECT-REASON       PIC X(32).
           05  PAY-CUSTOMER-ID         PIC X(10).
           05  PAY-DEBTOR-ACCOUNT      PIC X(16).
           05  PAY-CREDITOR-ACCOUNT    PIC X(16).
           05  PAY-AMOUNT              PIC S9(13)V99 COMP-3.
           05  PAY-CURRENCY-CODE       PIC X(3).
           05  PAY-REMITTANCE          PIC X(140).
           05  PAY-CREATED-BY          PIC X(64).
           05  PAY-CREATED-AT          PIC X(24).
