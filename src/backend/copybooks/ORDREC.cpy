      * ORDREC   ORDER RECORD: REPLY TO ORDCRT ORDINQ ORDUPD ORDCAN.
       01  ORDER-RECORD.
           05  ORD-ORDER-ID            PIC X(20).
           05  ORD-STATUS              PIC X(10).
               88  ORD-CONFIRMED                  VALUE 'CONFIRMED'.
               88  ORD-REJECTED                   VALUE 'REJECTED'.
               88  ORD-CANCELLED                  VALUE 'CANCELLED'.
           05  ORD-REJECT-REASON       PIC X(32).
           05  ORD-CUSTOMER-ID         PIC X(10).
           05  ORD-PRODUCT-ID          PIC X(16).
           05  ORD-QUANTITY            PIC 9(3).
           05  ORD-AMOUNT              PIC S9(13)V99 COMP-3.
           05  ORD-CURRENCY-CODE       PIC X(3).
           05  ORD-CREATED-BY          PIC X(64).
           05  ORD-CREATED-AT          PIC X(24).
           05  ORD-UPDATED-AT          PIC X(24).
           05  ORD-VERSION             PIC 9(9).
