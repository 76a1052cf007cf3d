      * ORDLSTO  ORDER LIST RESPONSE (TRANSACTION ORDLST).
      *          ORDO-NEXT-SEQ ZERO MEANS NO FURTHER PAGE.
       01  ORDER-LIST-RESPONSE.
           05  ORDO-NEXT-SEQ           PIC 9(15).
           05  ORDO-ITEM-COUNT         PIC 9(3).
           05  ORDO-ITEM OCCURS 0 TO 100 TIMES
                   DEPENDING ON ORDO-ITEM-COUNT.
               10  ORDO-ORDER-ID       PIC X(20).
               10  ORDO-STATUS         PIC X(10).
               10  ORDO-REJECT-REASON  PIC X(32).
               10  ORDO-CUSTOMER-ID    PIC X(10).
               10  ORDO-PRODUCT-ID     PIC X(16).
               10  ORDO-QUANTITY       PIC 9(3).
               10  ORDO-AMOUNT         PIC S9(13)V99 COMP-3.
               10  ORDO-CURRENCY-CODE  PIC X(3).
               10  ORDO-CREATED-BY     PIC X(64).
               10  ORDO-CREATED-AT     PIC X(24).
               10  ORDO-UPDATED-AT     PIC X(24).
               10  ORDO-VERSION        PIC 9(9).
