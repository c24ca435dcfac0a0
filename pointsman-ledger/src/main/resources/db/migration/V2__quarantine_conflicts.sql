-- Pointsman ledger, version 2: records the ledger refuses, and replays that disagree with
-- what the ledger already holds. Applied once, in one transaction, by LedgerSchema.

-- A settled record or an interrupted call that the schema refused (a check, a not-null, a
-- unique key, a value PostgreSQL cannot represent). It is kept here, in the transaction that
-- settled the rest of its batch, instead of failing that batch for ever. payload is the item
-- as it was handed over (json, not jsonb: jsonb cannot hold the \u0000 escapes a refused
-- string may contain). The scope columns and held_micros keep the hold the item names
-- counted against its budgets until it is re-driven; text columns have NUL characters
-- replaced, the payload keeps them.
CREATE TABLE pointsman.quarantine (
  quarantine_id   bigserial PRIMARY KEY,
  kind            text NOT NULL CHECK (kind IN ('SETTLED_RECORD', 'INTERRUPTED_CALL')),
  event_id        text NOT NULL,
  reservation_id  text,
  key_id          text NOT NULL,
  user_id         text,
  team_id         text,
  org_id          text,
  tags            text[] NOT NULL DEFAULT '{}',
  model           text,
  held_micros     bigint NOT NULL CHECK (held_micros >= 0),
  payload         json NOT NULL,
  reason_kind     text NOT NULL CHECK (reason_kind IN ('INVALID_VALUE', 'CONSTRAINT_VIOLATION',
                    'DUPLICATE_RESERVATION_ID')),
  reason          text NOT NULL,
  sql_state       text,
  quarantined_at  timestamptz NOT NULL DEFAULT now(),
  last_tried_at   timestamptz NOT NULL DEFAULT now(),
  tries           integer NOT NULL DEFAULT 1 CHECK (tries >= 1),
  redriven_at     timestamptz,
  redriven_payload json,
  UNIQUE (kind, event_id)
);

CREATE INDEX quarantine_pending ON pointsman.quarantine (quarantine_id)
  WHERE redriven_at IS NULL;

-- A settled record handed over again for an event the ledger already holds, carrying a
-- different cost or usage (or arriving for a call the ledger holds as interrupted). The
-- stored row is kept as it is; the disagreement is kept here and unbalances reconciliation
-- until an operator resolves it. One row per event and distinct replayed values.
CREATE TABLE pointsman.ledger_conflicts (
  conflict_id                bigserial PRIMARY KEY,
  event_id                   text NOT NULL REFERENCES pointsman.ledger_entries (event_id),
  stored_status              text NOT NULL,
  stored_cost_micros         bigint NOT NULL,
  stored_prompt_tokens       bigint,
  stored_completion_tokens   bigint,
  stored_cached_tokens       bigint,
  replayed_cost_micros       bigint NOT NULL,
  replayed_prompt_tokens     bigint,
  replayed_completion_tokens bigint,
  replayed_cached_tokens     bigint,
  replayed_digest            text NOT NULL,
  first_seen_at              timestamptz NOT NULL DEFAULT now(),
  last_seen_at               timestamptz NOT NULL DEFAULT now(),
  times_seen                 integer NOT NULL DEFAULT 1 CHECK (times_seen >= 1),
  resolved_at                timestamptz,
  resolution                 text,
  UNIQUE (event_id, replayed_digest),
  CHECK ((resolved_at IS NULL) = (resolution IS NULL))
);

CREATE INDEX ledger_conflicts_open ON pointsman.ledger_conflicts (event_id)
  WHERE resolved_at IS NULL;
