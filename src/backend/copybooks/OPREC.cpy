      * OPREC    AN OPERATION RUN LATER: RESPONSE OF OPSUBM AND OPINQ,
      *          AND PART OF OPDONE. WHEN IT HAS RUN, THE RETURN AND
      *          REASON CODES ARE ITS TRANSACTION'S, AND THE RECORD
      *          NAMED IN OPR-RESULT-RECORD FOLLOWS AS A SEGMENT (BLANK:
      *          NONE).
       01  OPERATION-RECORD.
           05  OPR-OPERATION-ID        PIC X(20).
           05  OPR-TRAN-CODE           PIC X(8).
           05  OPR-STATUS              PIC X(10).
               88  OPR-PENDING                    VALUE 'pending'.
               88  OPR-SUCCEEDED                  VALUE 'succeeded'.
               88  OPR-FAILED                     VALUE 'failed'.
           05  OPR-RETURN-CODE         PIC 9(2).
           05  OPR-REASON-CODE         PIC X(32).
           05  OPR-REASON-TEXT         PIC X(120).
           05  OPR-CORRELATION-ID      PIC X(128).
           05  OPR-CREATED-AT          PIC X(24).
           05  OPR-COMPLETED-AT        PIC X(24).
           05  OPR-RESULT-RECORD       PIC X(8).
