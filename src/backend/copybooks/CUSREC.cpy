      * CUSREC   CUSTOMER RECORD: RESPONSE OF CUSINQ, CUSADD, CUSUPD.
       01  CUSTOMER-RECORD.
           05  CUS-CUSTOMER-ID         PIC X(10).
           05  CUS-NAME                PIC X(70).
           05  CUS-EMAIL               PIC X(254).
           05  CUS-PHONE               PIC X(20).
           05  CUS-BIRTH-DATE          PIC X(10).
           05  CUS-ADDR-PRESENT        PIC X(1).
           05  CUS-ADDR.
               10  CUS-ADDR-LINE1      PIC X(70).
               10  CUS-ADDR-LINE2      PIC X(70).
               10  CUS-ADDR-POSTCODE   PIC X(16).
               10  CUS-ADDR-CITY       PIC X(35).
               10  CUS-ADDR-COUNTRY    PIC X(2).
           05  CUS-RISK-RATING         PIC X(1).
           05  CUS-MONTHLY-INCOME      PIC S9(13)V99 COMP-3.
           05  CUS-CREDIT-LIMIT        PIC S9(13)V99 COMP-3.
           05  CUS-CURRENCY-CODE       PIC X(3).
           05  CUS-CREATED-AT          PIC X(24).
           05  CUS-UPDATED-AT          PIC X(24).
