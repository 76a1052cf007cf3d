      * WHDREC   ONE WEBHOOK DELIVERY: AN EVENT TO A SUBSCRIPTION, ITS
      *          ATTEMPTS AND STATE. RESPONSE OF WHDRTY, SEGMENT OF
      *          WHDLST. WHD-LAST-STATUS ZERO: NO HTTP ANSWER (SEE ERROR).
      *          CANCELLED: ITS SUBSCRIPTION WAS DISABLED WHILE PENDING.
       01  WEBHOOK-DELIVERY.
           05  WHD-DELIVERY-ID         PIC X(20).
           05  WHD-SUBSCRIPTION-ID     PIC X(20).
           05  WHD-EVENT-ID            PIC X(36).
           05  WHD-EVENT-TYPE          PIC X(32).
           05  WHD-STATE               PIC X(10).
               88  WHD-PENDING                    VALUE 'pending'.
               88  WHD-SUCCEEDED                  VALUE 'succeeded'.
               88  WHD-FAILED                     VALUE 'failed'.
               88  WHD-CANCELLED                  VALUE 'cancelled'.
           05  WHD-ATTEMPTS            PIC 9(3).
           05  WHD-LAST-STATUS         PIC 9(3).
           05  WHD-LAST-ERROR          PIC X(120).
           05  WHD-NEXT-ATTEMPT-AT     PIC X(24).
           05  WHD-CREATED-AT          PIC X(24).
           05  WHD-UPDATED-AT          PIC X(24).
