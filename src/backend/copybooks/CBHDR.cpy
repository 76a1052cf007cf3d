      *================================================================*
      * CBHDR   COMMON HEADER OF EVERY COREBRIDGE TRANSACTION MESSAGE. *
      *         A MESSAGE IS THIS HEADER FOLLOWED BY THE TRANSACTION'S *
      *         OWN REQUEST OR RESPONSE RECORD. THE CALLER FILLS THE   *
      *         REQUEST PART; THE PROGRAM ANSWERS WITH RETURN AND      *
      *         REASON CODES. HDR-TRACEPARENT: THE W3C TRACEPARENT OF  *
      *         THE CALL (SPACES: NONE), LAST SO THAT THE OFFSETS OF   *
      *         THE FIELDS BEFORE IT STAY WHERE THEY WERE.             *
      *================================================================*
       01  CB-HEADER.
           05  HDR-EYECATCHER          PIC X(4)   VALUE 'CBH1'.
           05  HDR-TRAN-CODE           PIC X(8).
           05  HDR-CORRELATION-ID      PIC X(128).
           05  HDR-CALLER.
               10  HDR-PRINCIPAL       PIC X(64).
               10  HDR-ROLE            PIC X(8).
               10  HDR-CUSTOMER-ID     PIC X(10).
           05  HDR-IDEMPOTENCY-KEY     PIC X(64).
           05  HDR-RETURN-CODE         PIC 9(2)   VALUE ZERO.
               88  HDR-RC-OK                      VALUE 0.
               88  HDR-RC-REJECTED                VALUE 4.
               88  HDR-RC-NOT-FOUND               VALUE 8.
               88  HDR-RC-CONFLICT                VALUE 12.
               88  HDR-RC-RULE-FAILED             VALUE 16.
               88  HDR-RC-INVALID-INPUT           VALUE 20.
               88  HDR-RC-STALE-VERSION           VALUE 24.
               88  HDR-RC-UNKNOWN-TRAN            VALUE 90.
               88  HDR-RC-ABEND                   VALUE 99.
           05  HDR-REASON-CODE         PIC X(32).
           05  HDR-REASON-TEXT         PIC X(120).
           05  HDR-TRACEPARENT         PIC X(55).
