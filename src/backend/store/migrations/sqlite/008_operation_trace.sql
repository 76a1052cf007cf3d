-- The trace an operation run later belongs to: the W3C traceparent of the request that submitted it ('' for none).
ALTER TABLE operations ADD COLUMN traceparent TEXT NOT NULL DEFAULT '';
