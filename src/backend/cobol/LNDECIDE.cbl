      *================================================================*
      * LNDECIDE  THE LOAN DECISION RULE, CALLED BY TRANSACTION LNAPPL. *
      *                                                                *
      * IN:  LNDECI (RATING, MONTHLY INCOME, AMOUNT, INSTALLMENTS).    *
      * OUT: LNDECO, LEFT IN THE SAME COMMAREA.                        *
      *                                                                *
      * RATE BY RATING A 6.90 %, B 8.90 %, C 12.90 %, D NOT LENT TO;   *
      * 1.00 % MORE FROM 61 INSTALLMENTS. ANNUITY INSTALLMENT          *
      *   I = P * R / (1 - (1 + R) ** -N),  R = RATE / 12,             *
      * COMPUTED EXACTLY IN INTEGERS: WITH Q = 120000 + RATE-BP,       *
      *   I = P * RATE-BP * Q ** N / (120000 * (Q ** N - 120000 ** N)) *
      * ROUNDED HALF UP TO THE CENT. AFFORDABLE: I <= 40 % OF INCOME.  *
      * OTHERWISE THE LARGEST MULTIPLE OF 100.00 THAT IS AFFORDABLE,   *
      * IF IT IS AT LEAST HALF THE AMOUNT ASKED FOR. A REJECTION (ANY  *
      * REASON) HAS AMOUNT, RATE AND INSTALLMENT 0.                    *
      *================================================================*
       IDENTIFICATION DIVISION.
       PROGRAM-ID. LNDECIDE.
       DATA DIVISION.
       WORKING-STORAGE SECTION.
       01  WS-RATING                   PIC X(1).
       01  WS-RATE-BP                  PIC 9(5).
       01  WS-Q                        PIC 9(6).
       01  WS-N                        PIC 9(3).
       01  WS-INCOME-CENTS             PIC 9(17).
       01  WS-AMOUNT-CENTS             PIC 9(17).
       01  WS-MAX-CENTS                PIC 9(17).
       01  WS-FULL-CENTS               PIC 9(17).
       01  WS-REDUCED-CENTS            PIC 9(17).
       01  WS-STEPS                    PIC 9(17).
       LINKAGE SECTION.
       COPY CBHDR.
       COPY LNDECI.
       COPY LNDECO.
       PROCEDURE DIVISION USING CB-HEADER LOAN-RULE-INPUT.
       DECIDE.
      *    THE ANSWER OVERWRITES THE REQUEST: READ IT ALL FIRST.
           MOVE LNDI-RISK-RATING TO WS-RATING
           COMPUTE WS-INCOME-CENTS = LNDI-MONTHLY-INCOME * 100
           COMPUTE WS-AMOUNT-CENTS = LNDI-AMOUNT * 100
           MOVE LNDI-INSTALLMENTS TO WS-N
           SET ADDRESS OF LOAN-RULE-RESULT
               TO ADDRESS OF LOAN-RULE-INPUT
           INITIALIZE LOAN-RULE-RESULT
           MOVE 0 TO HDR-RETURN-CODE
           EVALUATE WS-RATING
               WHEN 'A' MOVE 690 TO WS-RATE-BP
               WHEN 'B' MOVE 890 TO WS-RATE-BP
               WHEN 'C' MOVE 1290 TO WS-RATE-BP
               WHEN OTHER
                   SET LNDO-REJECTED TO TRUE
                   MOVE 'RISK_RATING' TO LNDO-REJECT-REASON
                   GOBACK
           END-EVALUATE
           IF WS-N >= 61
               ADD 100 TO WS-RATE-BP
           END-IF
           COMPUTE LNDO-INTEREST-RATE = WS-RATE-BP / 100
      *    WS-RATE-BP IS AT LEAST 690 HERE: THE DIVISIONS BELOW ARE BY
      *    NON-ZERO NUMBERS (A 0 % RATE WOULD NEED I = P / N).
           COMPUTE WS-Q = 120000 + WS-RATE-BP
      *    WHOLE CENTS: TRUNCATION IS THE FLOOR.
           COMPUTE WS-MAX-CENTS = WS-INCOME-CENTS * 40 / 100
           COMPUTE WS-FULL-CENTS ROUNDED =
               WS-AMOUNT-CENTS * WS-RATE-BP * WS-Q ** WS-N
               / (120000 * (WS-Q ** WS-N - 120000 ** WS-N))
           IF WS-FULL-CENTS <= WS-MAX-CENTS
               SET LNDO-APPROVED TO TRUE
               COMPUTE LNDO-APPROVED-AMOUNT = WS-AMOUNT-CENTS / 100
               COMPUTE LNDO-INSTALLMENT-VALUE = WS-FULL-CENTS / 100
               GOBACK
           END-IF
      *    THE LARGEST P WITH ROUND(P * K / D) <= MAX, K AND D AS IN
      *    THE INSTALLMENT: 2 * P * K < (2 * MAX + 1) * D.
           COMPUTE WS-REDUCED-CENTS =
               ((2 * WS-MAX-CENTS + 1) * 120000
                 * (WS-Q ** WS-N - 120000 ** WS-N) - 1)
               / (2 * WS-RATE-BP * WS-Q ** WS-N)
           DIVIDE WS-REDUCED-CENTS BY 10000 GIVING WS-STEPS
           COMPUTE WS-REDUCED-CENTS = WS-STEPS * 10000
           IF WS-REDUCED-CENTS > 0
              AND WS-REDUCED-CENTS * 2 >= WS-AMOUNT-CENTS
               SET LNDO-APPROVED TO TRUE
               COMPUTE LNDO-APPROVED-AMOUNT = WS-REDUCED-CENTS / 100
               COMPUTE LNDO-INSTALLMENT-VALUE ROUNDED =
                   WS-REDUCED-CENTS * WS-RATE-BP * WS-Q ** WS-N
                   / (120000 * (WS-Q ** WS-N - 120000 ** WS-N)) / 100
           ELSE
      *        A REJECTION OFFERS NOTHING: AMOUNT, RATE, INSTALLMENT 0.
               SET LNDO-REJECTED TO TRUE
               MOVE 'INSUFFICIENT_INCOME' TO LNDO-REJECT-REASON
               MOVE 0 TO LNDO-INTEREST-RATE
           END-IF
           GOBACK.
