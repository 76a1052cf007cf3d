      * LOANREC  LOAN DECISION: RESPONSE OF LNAPPL AND LNINQ.
       01  LOAN-DECISION.
           05  LN-LOAN-ID              PIC X(20).
           05  LN-STATUS               PIC X(10).
               88  LN-APPROVED                    VALUE 'APPROVED'.
               88  LN-REJECTED                    VALUE 'REJECTED'.
           05  LN-REJECT-REASON        PIC X(32).
           05  LN-CUSTOMER-ID          PIC 9(10).
           05  LN-REQUESTED-AMOUNT     PIC S9(13)V99 COMP-3.
           05  LN-APPROVED-AMOUNT      PIC S9(13)V99 COMP-3.
           05  LN-INTEREST-RATE        PIC S9(3)V99  COMP-3.
           05  LN-INSTALLMENT-VALUE    PIC S9(13)V99 COMP-3.
           05  LN-INSTALLMENTS         PIC 9(3).
           05  LN-CURRENCY-CODE        PIC X(3).
           05  LN-CREATED-BY           PIC X(64).
           05  LN-CREATED-AT           PIC X(24).
