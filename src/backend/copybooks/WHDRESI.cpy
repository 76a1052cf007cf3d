      * WHDRESI  WEBHOOK DELIVERY RESULTS (WHDRES, SYSTEM CALLER ONLY).
      *          OUTCOME S SUCCEEDED, R RETRY AT WHDR-NEXT-ATTEMPT-AT,
      *          F FAILED FOR GOOD, G GONE (410: THE SUBSCRIPTION IS
      *          DISABLED).
       01  DELIVERY-RESULTS.
           05  WHDR-ITEM-COUNT         PIC 9(3).
           05  WHDR-ITEM OCCURS 1 TO 100 TIMES
                   DEPENDING ON WHDR-ITEM-COUNT.
               10  WHDR-DELIVERY-ID    PIC X(20).
               10  WHDR-OUTCOME        PIC X(1).
               10  WHDR-STATUS         PIC 9(3).
               10  WHDR-ERROR          PIC X(120).
               10  WHDR-NEXT-ATTEMPT-AT PIC X(24).
