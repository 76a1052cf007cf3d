      * CUSUPDI  CUSTOMER UPDATE REQUEST (TRANSACTION CUSUPD), A MERGE
      *          PATCH: EACH FIELD HAS AN ACTION K(EEP) S(ET) D(ELETE).
       01  CUSTOMER-UPDATE-REQUEST.
           05  CUSU-CUSTOMER-ID        PIC X(10).
           05  CUSU-NAME-ACTION        PIC X(1)   VALUE 'K'.
           05  CUSU-NAME               PIC X(70).
           05  CUSU-EMAIL-ACTION       PIC X(1)   VALUE 'K'.
           05  CUSU-EMAIL              PIC X(254).
           05  CUSU-PHONE-ACTION       PIC X(1)   VALUE 'K'.
           05  CUSU-PHONE              PIC X(20).
           05  CUSU-BIRTH-DATE-ACTION  PIC X(1)   VALUE 'K'.
           05  CUSU-BIRTH-DATE         PIC X(10).
           05  CUSU-ADDR-ACTION        PIC X(1)   VALUE 'K'.
           05  CUSU-ADDR.
               10  CUSU-ADDR-LINE1-ACTION    PIC X(1)  VALUE 'K'.
               10  CUSU-ADDR-LINE1           PIC X(70).
               10  CUSU-ADDR-LINE2-ACTION    PIC X(1)  VALUE 'K'.
               10  CUSU-ADDR-LINE2           PIC X(70).
               10  CUSU-ADDR-POSTCODE-ACTION PIC X(1)  VALUE 'K'.
               10  CUSU-ADDR-POSTCODE        PIC X(16).
               10  CUSU-ADDR-CITY-ACTION     PIC X(1)  VALUE 'K'.
               10  CUSU-ADDR-CITY            PIC X(35).
               10  CUSU-ADDR-COUNTRY-ACTION  PIC X(1)  VALUE 'K'.
               10  CUSU-ADDR-COUNTRY         PIC X(2).
