      * PMVERI   PAYMENT METHOD CHECK: REQUEST OF PROGRAM PMVERIFY.
      *          A CARD OR A BANK ACCOUNT, CHOSEN BY PMV-METHOD.
       01  PM-VERIFY-REQUEST.
           05  PMV-CUSTOMER-ID         PIC 9(10).
           05  PMV-CHANNEL             PIC X(8).
           05  PMV-METHOD              PIC X(1).
               88  PMV-BY-CARD                    VALUE 'C'.
               88  PMV-BY-ACH                     VALUE 'A'.
           05  PMV-DETAILS             PIC X(30).
           05  PMV-CARD REDEFINES PMV-DETAILS.
               10  PMV-CARD-NUMBER     PIC X(19).
               10  PMV-CARD-EXPIRY     PIC X(4).
           05  PMV-ACH REDEFINES PMV-DETAILS.
               10  PMV-ACH-ROUTING     PIC X(9).
               10  PMV-ACH-ACCOUNT     PIC X(17).
