      * OPTASK   A CLAIMED OPERATION: THE HEADER TO RUN IT WITH. ITS
      *          REQUEST RECORD (COPYBOOK OF ITS TRANSACTION) FOLLOWS.
       01  OPERATION-TASK.
           05  OPT-OPERATION-ID        PIC X(20).
           05  OPT-TRAN-CODE           PIC X(8).
           05  OPT-PRINCIPAL           PIC X(64).
           05  OPT-ROLE                PIC X(8).
           05  OPT-CUSTOMER-ID         PIC X(10).
           05  OPT-IDEMPOTENCY-KEY     PIC X(64).
           05  OPT-CORRELATION-ID      PIC X(128).
           05  OPT-TRACEPARENT         PIC X(55).
