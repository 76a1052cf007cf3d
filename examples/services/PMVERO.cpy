      * PMVERO   PAYMENT METHOD CHECK: RESPONSE OF PROGRAM PMVERIFY.
       01  PM-VERIFY-RESULT.
           05  PMR-CUSTOMER-ID         PIC 9(10).
           05  PMR-METHOD              PIC X(1).
           05  PMR-DETAILS             PIC X(20).
           05  PMR-CARD REDEFINES PMR-DETAILS.
               10  PMR-CARD-BRAND      PIC X(10).
               10  PMR-CARD-LAST4      PIC X(4).
           05  PMR-ACH REDEFINES PMR-DETAILS.
               10  PMR-ACH-ROUTING     PIC X(9).
               10  PMR-ACH-LAST4       PIC X(4).
           05  PMR-CHECKED-ON          PIC X(8).
