      * WHDTASK  A CLAIMED DELIVERY (SEGMENT OF THE WHDDUE ANSWER):
      *          WHERE TO, HOW TO SIGN, AND FOR WHOM THE EVENT'S DATA IS
      *          SHAPED. AN EVTREC AND THE RESOURCE RECORD FOLLOW IT.
       01  DELIVERY-TASK.
           05  WHDT-DELIVERY-ID        PIC X(20).
           05  WHDT-SUBSCRIPTION-ID    PIC X(20).
           05  WHDT-URL                PIC X(500).
           05  WHDT-SECRET             PIC X(64).
           05  WHDT-OWNER-ROLE         PIC X(8).
           05  WHDT-ATTEMPTS           PIC 9(3).
