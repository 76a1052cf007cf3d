      * CUSADDI  CUSTOMER ADD REQUEST (TRANSACTION CUSADD).
      *          BLANK OPTIONAL FIELDS ARE ABSENT.
       01  CUSTOMER-ADD-REQUEST.
           05  CUSA-NAME               PIC X(70).
           05  CUSA-EMAIL              PIC X(254).
           05  CUSA-PHONE              PIC X(20).
           05  CUSA-BIRTH-DATE         PIC X(10).
           05  CUSA-ADDR-PRESENT       PIC X(1)   VALUE 'N'.
           05  CUSA-ADDR.
               10  CUSA-ADDR-LINE1     PIC X(70).
               10  CUSA-ADDR-LINE2     PIC X(70).
               10  CUSA-ADDR-POSTCODE  PIC X(16).
               10  CUSA-ADDR-CITY      PIC X(35).
               10  CUSA-ADDR-COUNTRY   PIC X(2).
