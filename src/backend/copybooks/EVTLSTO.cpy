      * EVTLSTO  EVENT LIST RESPONSE (TRANSACTIONS EVTLST AND EVTNXT).
      *          THE RECORD IS FOLLOWED BY EVTO-ITEM-COUNT SEGMENTS: AN
      *          EVENT HEADER (EVTREC), THEN THE RECORD IT NAMES IN
      *          EVT-RECORD-NAME (ORDREC, PAYREC, LOANREC OR CUSREC).
       01  EVENT-LIST-RESPONSE.
           05  EVTO-LEASE-HELD         PIC X(1).
               88  EVTO-LEASE-MINE                VALUE 'Y'.
               88  EVTO-LEASE-OTHERS              VALUE 'N'.
           05  EVTO-LAST-POSITION      PIC 9(15).
           05  EVTO-MORE               PIC X(1).
               88  EVTO-MORE-ITEMS                VALUE 'Y'.
           05  EVTO-ITEM-COUNT         PIC 9(3).
