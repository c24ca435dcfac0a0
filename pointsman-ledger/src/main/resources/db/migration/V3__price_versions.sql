-- Pointsman ledger, version 3: every row records the price it was charged at, and the token
-- classes that price distinguishes, so that a corrected price can be re-rated from the rows.
ALTER TABLE pointsman.ledger_entries
  ADD COLUMN price_version      text,
  ADD COLUMN cache_write_tokens bigint CHECK (cache_write_tokens >= 0),
  ADD COLUMN reasoning_tokens   bigint CHECK (reasoning_tokens >= 0);

CREATE INDEX ledger_entries_model_price ON pointsman.ledger_entries (model, price_version);
