      * WHKRCVO  WHAT A RECOVER (WHKRCV) QUEUED: WHKO-QUEUED EVENTS DUE
      *          NOW, WHKO-REQUEUED OF THEM ALREADY DELIVERED OR TRIED
      *          ONCE. WHKO-CUT Y: THE WINDOW HAD MORE THAN ONE CALL
      *          TAKES; RECOVER AGAIN FROM WHKO-CONTINUE-FROM (THE TIME
      *          OF THE FIRST EVENT NOT QUEUED) TO WHKO-UNTIL.
       01  WEBHOOK-RECOVER-RESPONSE.
           05  WHKO-SUBSCRIPTION-ID    PIC X(20).
           05  WHKO-SINCE              PIC X(24).
           05  WHKO-UNTIL              PIC X(24).
           05  WHKO-QUEUED             PIC 9(5).
           05  WHKO-REQUEUED           PIC 9(5).
           05  WHKO-CUT                PIC X(1).
               88  WHKO-WINDOW-CUT                VALUE 'Y'.
               88  WHKO-WINDOW-DONE               VALUE 'N'.
           05  WHKO-CONTINUE-FROM      PIC X(24).
