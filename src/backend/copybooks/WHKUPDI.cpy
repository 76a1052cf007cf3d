      * WHKUPDI  WEBHOOK SUBSCRIPTION UPDATE (TRANSACTION WHKUPD), A
      *          MERGE PATCH OF ONE OF THE CALLER'S SUBSCRIPTIONS: EACH
      *          FIELD HAS AN ACTION K(EEP) S(ET) D(ELETE; THE
      *          DESCRIPTION ONLY). WHKU-STATUS ACTIVE OR DISABLED:
      *          DISABLING CANCELS THE PENDING DELIVERIES. THE FIRST
      *          WHKU-EVENT-TYPE-COUNT TYPES OF THE TABLE ARE USED.
       01  WEBHOOK-UPDATE-REQUEST.
           05  WHKU-SUBSCRIPTION-ID    PIC X(20).
           05  WHKU-URL-ACTION         PIC X(1)   VALUE 'K'.
           05  WHKU-URL                PIC X(500).
           05  WHKU-DESCRIPTION-ACTION PIC X(1)   VALUE 'K'.
           05  WHKU-DESCRIPTION        PIC X(200).
           05  WHKU-STATUS-ACTION      PIC X(1)   VALUE 'K'.
           05  WHKU-STATUS             PIC X(8).
               88  WHKU-ACTIVE                    VALUE 'active'.
               88  WHKU-DISABLED                  VALUE 'disabled'.
           05  WHKU-EVENT-TYPES-ACTION PIC X(1)   VALUE 'K'.
           05  WHKU-EVENT-TYPE-COUNT   PIC 9(2).
           05  WHKU-EVENT-TYPES        OCCURS 10 TIMES.
               10  WHKU-EVENT-TYPE     PIC X(24).
