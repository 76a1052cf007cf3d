      * Customer account record, as a core banking system hands it over.
       01  CUSTOMER-ACCOUNT.
           05  CA-CUSTOMER-ID          PIC 9(8).
           05  CA-NAME.
               10  CA-FIRST-NAME       PIC X(15).
               10  CA-LAST-NAME        PIC X(20).
           05  CA-STATUS               PIC X VALUE 'A'.
               88  CA-ACTIVE           VALUE 'A'.
               88  CA-CLOSED           VALUE 'C'.
           05  CA-BALANCE              PIC S9(13)V99 COMP-3.
           05  CA-CREDIT-LIMIT         PIC S9(7)V99.
           05  CA-OPENED-YYYYMMDD      PIC 9(8).
           05  FILLER                  PIC X(4).
           05  CA-TXN-COUNT            PIC 9(2) COMP.
           05  CA-LAST-TXNS OCCURS 0 TO 5 TIMES
                   DEPENDING ON CA-TXN-COUNT.
               10  CA-TXN-AMOUNT       PIC S9(9)V99 COMP-3.
               10  CA-TXN-TYPE         PIC X(2).
