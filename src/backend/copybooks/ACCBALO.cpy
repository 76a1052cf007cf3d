      * ACCBALO  ACCOUNT BALANCE (RESPONSE OF ACCBAL).
       01  ACCOUNT-BALANCE.
           05  ACCB-ACCOUNT-ID         PIC X(16).
           05  ACCB-CUSTOMER-ID        PIC X(10).
           05  ACCB-CURRENCY-CODE      PIC X(3).
           05  ACCB-BALANCE            PIC S9(13)V99 COMP-3.
           05  ACCB-AVAILABLE          PIC S9(13)V99 COMP-3.
           05  ACCB-AS-OF              PIC X(24).
