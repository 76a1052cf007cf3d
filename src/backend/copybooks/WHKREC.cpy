      * WHKREC   WEBHOOK SUBSCRIPTION: RESPONSE OF WHKCRT, WHKINQ AND
      *          WHKDEL AND WHKUPD, AND A SEGMENT OF WHKLSTO. NEVER THE
      *          SECRET: THE API MADE IT AND SHOWS IT ONCE.
       01  WEBHOOK-SUBSCRIPTION.
           05  WHK-SUBSCRIPTION-ID     PIC X(20).
           05  WHK-URL                 PIC X(500).
           05  WHK-DESCRIPTION         PIC X(200).
           05  WHK-STATUS              PIC X(8).
               88  WHK-ACTIVE                     VALUE 'active'.
               88  WHK-DISABLED                   VALUE 'disabled'.
           05  WHK-DISABLED-REASON     PIC X(32).
           05  WHK-CREATED-AT          PIC X(24).
           05  WHK-EVENT-TYPE-COUNT    PIC 9(2).
           05  WHK-EVENT-TYPES         OCCURS 10 TIMES.
               10  WHK-EVENT-TYPE      PIC X(32).
