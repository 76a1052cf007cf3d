      * EVTREC   EVENT HEADER: ONE PAST-TENSE FACT ABOUT A RESOURCE. THE
      *          RESOURCE'S RECORD, AS IT WAS WHEN THE EVENT HAPPENED,
      *          FOLLOWS (COPYBOOK EVT-RECORD-NAME).
       01  EVENT-RECORD.
           05  EVT-POSITION            PIC 9(15).
           05  EVT-EVENT-ID            PIC X(36).
           05  EVT-EVENT-TYPE          PIC X(32).
           05  EVT-SUBJECT             PIC X(20).
           05  EVT-OCCURRED-AT         PIC X(24).
           05  EVT-CORRELATION-ID      PIC X(128).
           05  EVT-OWNER-CUSTOMER-ID   PIC X(10).
           05  EVT-RECORD-NAME         PIC X(8).
