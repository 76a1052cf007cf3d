      *================================================================*
      * PMVERIFY  CHECKS A PAYMENT METHOD BEFORE IT IS STORED.         *
      *                                                                *
      * CARD: 12 TO 19 DIGITS, LUHN CHECK DIGIT, EXPIRY MMYY NOT PAST. *
      * ACH:  9-DIGIT ROUTING NUMBER WITH ITS ABA CHECK DIGIT, AND AN  *
      *       ACCOUNT NUMBER.                                          *
      * RETURN CODES: 00 VALID, 04 DECLINED (REASON CODE SAYS WHY),    *
      *               20 INVALID INPUT.                                *
      *================================================================*
       IDENTIFICATION DIVISION.
       PROGRAM-ID. PMVERIFY.
       DATA DIVISION.
       WORKING-STORAGE SECTION.
       01  WS-REQUEST.
           COPY PMVERI REPLACING ==01  PM-VERIFY-REQUEST.== BY ====.
       01  WS-TODAY                    PIC X(21).
       01  WS-NOW-YYYYMM               PIC 9(6).
       01  WS-EXP-YYYYMM               PIC 9(6).
       01  WS-EXP-MM                   PIC 99.
       01  WS-EXP-YY                   PIC 99.
       01  WS-LEN                      PIC 99.
       01  WS-I                        PIC 99.
       01  WS-DIGIT                    PIC 9.
       01  WS-DOUBLE                   PIC 99.
       01  WS-SUM                      PIC 9(4).
       01  WS-FROM-RIGHT               PIC 99.
       LINKAGE SECTION.
       COPY CBHDR.
      *    THE LARGER OF PMVERI (49 BYTES) AND PMVERO (39).
       01  LK-COMMAREA                 PIC X(49).
       COPY PMVERO.
       PROCEDURE DIVISION USING CB-HEADER LK-COMMAREA.
       MAIN.
           MOVE LK-COMMAREA(1:LENGTH OF WS-REQUEST) TO WS-REQUEST
           SET ADDRESS OF PM-VERIFY-RESULT TO ADDRESS OF LK-COMMAREA
           MOVE ALL SPACES TO LK-COMMAREA
           MOVE PMV-CUSTOMER-ID TO PMR-CUSTOMER-ID
           MOVE PMV-METHOD TO PMR-METHOD
           MOVE FUNCTION CURRENT-DATE TO WS-TODAY
           MOVE WS-TODAY(1:8) TO PMR-CHECKED-ON
           MOVE 0 TO HDR-RETURN-CODE
           MOVE SPACES TO HDR-REASON-CODE HDR-REASON-TEXT
           EVALUATE TRUE
               WHEN PMV-BY-CARD PERFORM CHECK-CARD
               WHEN PMV-BY-ACH PERFORM CHECK-ACH
               WHEN OTHER
                   MOVE 20 TO HDR-RETURN-CODE
                   MOVE 'METHOD_UNKNOWN' TO HDR-REASON-CODE
                   MOVE 'method must be C (card) or A (bank account)'
                     TO HDR-REASON-TEXT
           END-EVALUATE
           GOBACK.

       CHECK-CARD.
           MOVE 0 TO WS-LEN
           INSPECT PMV-CARD-NUMBER TALLYING WS-LEN
               FOR CHARACTERS BEFORE INITIAL SPACE
           IF WS-LEN < 12 OR PMV-CARD-NUMBER(1:WS-LEN) IS NOT NUMERIC
               MOVE 20 TO HDR-RETURN-CODE
               MOVE 'CARD_NUMBER_FORMAT' TO HDR-REASON-CODE
               MOVE 'the card number has 12 to 19 digits'
                 TO HDR-REASON-TEXT
               EXIT PARAGRAPH
           END-IF
           IF PMV-CARD-EXPIRY IS NOT NUMERIC
               MOVE 20 TO HDR-RETURN-CODE
               MOVE 'CARD_EXPIRY_FORMAT' TO HDR-REASON-CODE
               MOVE 'the expiry is MMYY' TO HDR-REASON-TEXT
               EXIT PARAGRAPH
           END-IF
           MOVE PMV-CARD-EXPIRY(1:2) TO WS-EXP-MM
           MOVE PMV-CARD-EXPIRY(3:2) TO WS-EXP-YY
           IF WS-EXP-MM < 1 OR WS-EXP-MM > 12
               MOVE 20 TO HDR-RETURN-CODE
               MOVE 'CARD_EXPIRY_FORMAT' TO HDR-REASON-CODE
               MOVE 'the expiry is MMYY' TO HDR-REASON-TEXT
               EXIT PARAGRAPH
           END-IF
           MOVE 'OTHER' TO PMR-CARD-BRAND
           EVALUATE TRUE
               WHEN PMV-CARD-NUMBER(1:1) = '4'
                   MOVE 'VISA' TO PMR-CARD-BRAND
               WHEN PMV-CARD-NUMBER(1:2) >= '51'
                AND PMV-CARD-NUMBER(1:2) <= '55'
                   MOVE 'MASTERCARD' TO PMR-CARD-BRAND
               WHEN PMV-CARD-NUMBER(1:2) = '34' OR '37'
                   MOVE 'AMEX' TO PMR-CARD-BRAND
           END-EVALUATE
           MOVE PMV-CARD-NUMBER(WS-LEN - 3:4) TO PMR-CARD-LAST4
      *    LUHN: FROM THE RIGHT, EVERY SECOND DIGIT DOUBLED.
           MOVE 0 TO WS-SUM
           PERFORM VARYING WS-I FROM WS-LEN BY -1 UNTIL WS-I < 1
               MOVE PMV-CARD-NUMBER(WS-I:1) TO WS-DIGIT
               COMPUTE WS-FROM-RIGHT = WS-LEN - WS-I
               IF FUNCTION MOD(WS-FROM-RIGHT, 2) = 1
                   COMPUTE WS-DOUBLE = WS-DIGIT * 2
                   IF WS-DOUBLE > 9
                       SUBTRACT 9 FROM WS-DOUBLE
                   END-IF
                   ADD WS-DOUBLE TO WS-SUM
               ELSE
                   ADD WS-DIGIT TO WS-SUM
               END-IF
           END-PERFORM
           IF FUNCTION MOD(WS-SUM, 10) NOT = 0
               MOVE 4 TO HDR-RETURN-CODE
               MOVE 'CARD_NUMBER_INVALID' TO HDR-REASON-CODE
               MOVE 'the card number fails its check digit'
                 TO HDR-REASON-TEXT
               EXIT PARAGRAPH
           END-IF
           MOVE WS-TODAY(1:6) TO WS-NOW-YYYYMM
           COMPUTE WS-EXP-YYYYMM = 200000 + WS-EXP-YY * 100 + WS-EXP-MM
           IF WS-EXP-YYYYMM < WS-NOW-YYYYMM
               MOVE 4 TO HDR-RETURN-CODE
               MOVE 'CARD_EXPIRED' TO HDR-REASON-CODE
               MOVE 'the card has expired' TO HDR-REASON-TEXT
           END-IF.

       CHECK-ACH.
           IF PMV-ACH-ROUTING IS NOT NUMERIC
               MOVE 20 TO HDR-RETURN-CODE
               MOVE 'ROUTING_NUMBER_FORMAT' TO HDR-REASON-CODE
               MOVE 'the routing number has 9 digits' TO HDR-REASON-TEXT
               EXIT PARAGRAPH
           END-IF
           IF PMV-ACH-ACCOUNT = SPACES
               MOVE 20 TO HDR-RETURN-CODE
               MOVE 'ACCOUNT_NUMBER_MISSING' TO HDR-REASON-CODE
               MOVE 'the account number is missing' TO HDR-REASON-TEXT
               EXIT PARAGRAPH
           END-IF
           MOVE PMV-ACH-ROUTING TO PMR-ACH-ROUTING
           MOVE 0 TO WS-LEN
           INSPECT PMV-ACH-ACCOUNT TALLYING WS-LEN
               FOR CHARACTERS BEFORE INITIAL SPACE
           IF WS-LEN >= 4
               MOVE PMV-ACH-ACCOUNT(WS-LEN - 3:4) TO PMR-ACH-LAST4
           ELSE
               MOVE PMV-ACH-ACCOUNT(1:WS-LEN) TO PMR-ACH-LAST4
           END-IF
      *    ABA: 3 7 1 WEIGHTS OVER THE NINE DIGITS, A MULTIPLE OF 10.
           MOVE 0 TO WS-SUM
           PERFORM VARYING WS-I FROM 1 BY 1 UNTIL WS-I > 9
               MOVE PMV-ACH-ROUTING(WS-I:1) TO WS-DIGIT
               EVALUATE FUNCTION MOD(WS-I, 3)
                   WHEN 1 COMPUTE WS-SUM = WS-SUM + 3 * WS-DIGIT
                   WHEN 2 COMPUTE WS-SUM = WS-SUM + 7 * WS-DIGIT
                   WHEN 0 ADD WS-DIGIT TO WS-SUM
               END-EVALUATE
           END-PERFORM
           IF FUNCTION MOD(WS-SUM, 10) NOT = 0
               MOVE 4 TO HDR-RETURN-CODE
               MOVE 'ROUTING_NUMBER_INVALID' TO HDR-REASON-CODE
               MOVE 'the routing number fails its check digit'
                 TO HDR-REASON-TEXT
           END-IF.
