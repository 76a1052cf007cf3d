-- On SQLite an event takes its position as it is written (store/journal.ts): the one writer commits in insert
-- order, so a position never appears before one below it. Events written before this and not positioned yet
-- take theirs now, in the same order: position = seq, above every position the relay gave (it gave them in seq
-- order, from 1). The relay's next turn hands them on (its last_position is below them).
UPDATE events SET position = seq WHERE position IS NULL;
