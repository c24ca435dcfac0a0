-- Pointsman ledger, version 1. Applied once, in one transaction, by LedgerSchema.
-- Money is integer micro-units. Every table lives in the pointsman schema so that a host's
-- own tables never collide with ours.

-- Identity: organisations, teams, users and virtual keys. No foreign keys between them: a
-- key may name a team before the team is registered, and settlement must never fail because
-- an identity row is missing.
CREATE TABLE pointsman.orgs (
  org_id      text PRIMARY KEY CHECK (org_id <> ''),
  every_model boolean NOT NULL DEFAULT true,
  models      text[] NOT NULL DEFAULT '{}',
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pointsman.teams (
  team_id     text PRIMARY KEY CHECK (team_id <> ''),
  org_id      text,
  every_model boolean NOT NULL DEFAULT true,
  models      text[] NOT NULL DEFAULT '{}',
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pointsman.users (
  user_id    text PRIMARY KEY CHECK (user_id <> ''),
  team_id    text,
  org_id     text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 hash of a key is stored; the key itself is shown once and forgotten.
CREATE TABLE pointsman.virtual_keys (
  key_id      text PRIMARY KEY CHECK (key_id <> ''),
  key_hash    bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
  user_id     text,
  team_id     text,
  org_id      text,
  tags        text[] NOT NULL DEFAULT '{}',
  every_model boolean NOT NULL,
  models      text[] NOT NULL DEFAULT '{}',
  expires_at  timestamptz,
  revoked_at  timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per call, keyed by its event id: the idempotency key of settlement.
CREATE TABLE pointsman.ledger_entries (
  event_id          text PRIMARY KEY CHECK (event_id <> ''),
  request_id        text NOT NULL,
  key_id            text NOT NULL,
  user_id           text,
  team_id           text,
  org_id            text,
  tags              text[] NOT NULL DEFAULT '{}',
  model             text,
  deployment_id     text,
  attempts          integer NOT NULL CHECK (attempts >= 0),
  outcome           text NOT NULL CHECK (outcome IN ('SUCCESS', 'CACHE_HIT', 'SERVED_BY_STAGE',
                      'REJECTED', 'BLOCKED_OUTPUT', 'PROVIDER_FAILED', 'UNKNOWN', 'CANCELLED',
                      'FAILED')),
  status            text NOT NULL CHECK (status IN ('SETTLED', 'UNKNOWN', 'ATTESTED', 'EXPIRED')),
  http_status       integer CHECK (http_status BETWEEN 100 AND 599),
  decided_by        text,
  rule              text,
  prompt_tokens     bigint CHECK (prompt_tokens >= 0),
  completion_tokens bigint CHECK (completion_tokens >= 0),
  cached_tokens     bigint CHECK (cached_tokens >= 0),
  cost_micros       bigint NOT NULL CHECK (cost_micros >= 0),
  cost_estimated    boolean NOT NULL,
  reservation_id    text,
  held_micros       bigint NOT NULL CHECK (held_micros >= 0),
  cache_outcome     text,
  started_at        timestamptz NOT NULL,
  duration_nanos    bigint CHECK (duration_nanos >= 0),
  recorded_at       timestamptz NOT NULL,
  resolved_at       timestamptz,
  evidence          text,
  -- An interrupted call is UNKNOWN until attested or expired; a settled record never is.
  CHECK (status = 'SETTLED' OR outcome = 'UNKNOWN')
);

-- Spend by key, team, org, tag or model per period is answered by charges_scope_period
-- (below), which every settled call writes anyway; indexing the same scopes again here would
-- cost every settlement four more index inserts. Only listing one key's calls is indexed.
CREATE INDEX ledger_entries_key_time ON pointsman.ledger_entries (key_id, started_at);
CREATE INDEX ledger_entries_unresolved ON pointsman.ledger_entries (started_at)
  WHERE status = 'UNKNOWN';

-- The budget scopes one call charges: its key always; its team, org and model when known;
-- each distinct non-empty tag. The one definition used by settlement, attestation, expiry
-- and the held-totals queries, so they can never disagree.
CREATE FUNCTION pointsman.scopes_of(key_id text, team_id text, org_id text, tags text[],
    model text)
  RETURNS TABLE (scope_kind text, scope_id text)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT s.kind, s.id FROM (
    SELECT 'KEY' AS kind, key_id AS id
    UNION ALL SELECT 'TEAM', team_id
    UNION ALL SELECT 'ORG', org_id
    UNION ALL SELECT 'MODEL', model
    UNION ALL SELECT DISTINCT 'TAG', t FROM unnest(tags) AS t
  ) AS s
  WHERE s.id IS NOT NULL AND s.id <> ''
$$;

-- What each call charged each of its scopes; written together with the ledger row (settled
-- calls) or with the resolution of the hold (attested or expired calls). occurred_at is the
-- call's start, so a late or replayed settlement lands in the period the call belongs to.
CREATE TABLE pointsman.charges (
  event_id      text NOT NULL REFERENCES pointsman.ledger_entries (event_id),
  scope_kind    text NOT NULL CHECK (scope_kind IN ('KEY', 'TEAM', 'ORG', 'TAG', 'MODEL')),
  scope_id      text NOT NULL CHECK (scope_id <> ''),
  amount_micros bigint NOT NULL CHECK (amount_micros > 0),
  occurred_at   timestamptz NOT NULL,
  PRIMARY KEY (event_id, scope_kind, scope_id)
);

CREATE INDEX charges_scope_period
  ON pointsman.charges (scope_kind, scope_id, occurred_at) INCLUDE (amount_micros);

-- A call's reservation. HELD lives in the journal and the in-process limiter while the call
-- runs; the ledger records the state it ends in: SETTLED or RELEASED for a settled record,
-- UNKNOWN for an interrupted call, later ATTESTED or EXPIRED. epoch counts the changes of the
-- row: an attestation must name the epoch it was made against.
CREATE TABLE pointsman.reservations (
  reservation_id    text PRIMARY KEY CHECK (reservation_id <> ''),
  event_id          text NOT NULL UNIQUE REFERENCES pointsman.ledger_entries (event_id),
  state             text NOT NULL CHECK (state IN ('HELD', 'SETTLED', 'RELEASED', 'UNKNOWN',
                      'ATTESTED', 'EXPIRED')),
  held_micros       bigint NOT NULL CHECK (held_micros >= 0),
  worst_case_micros bigint NOT NULL CHECK (worst_case_micros >= 0),
  floor_micros      bigint NOT NULL DEFAULT 0 CHECK (floor_micros >= 0),
  charged_micros    bigint CHECK (charged_micros >= 0),
  epoch             bigint NOT NULL DEFAULT 1 CHECK (epoch >= 1),
  held_since        timestamptz NOT NULL,
  hold_until        timestamptz,
  resolved_at       timestamptz,
  evidence          text,
  CHECK ((state IN ('HELD', 'UNKNOWN')) = (charged_micros IS NULL)),
  CHECK (state NOT IN ('HELD', 'UNKNOWN') OR hold_until IS NOT NULL)
);

CREATE INDEX reservations_unresolved ON pointsman.reservations (hold_until)
  WHERE state IN ('HELD', 'UNKNOWN');

-- Budget definitions. Spend is never kept in a counter row (every settlement would contend
-- on it): it is summed from charges over the period, through charges_scope_period.
CREATE TABLE pointsman.budgets (
  budget_id    bigserial PRIMARY KEY,
  scope_kind   text NOT NULL CHECK (scope_kind IN ('GLOBAL', 'KEY', 'TEAM', 'ORG', 'TAG',
                 'MODEL')),
  scope_id     text NOT NULL,
  period       text NOT NULL CHECK (period IN ('TOTAL', 'DAY', 'MONTH')),
  limit_micros bigint NOT NULL CHECK (limit_micros >= 0),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (scope_kind, scope_id, period),
  CHECK ((scope_kind = 'GLOBAL') = (scope_id = ''))
);

-- Snapshots of a budget's spend per period, written by PostgresBudgetStore.recordPeriods.
CREATE TABLE pointsman.budget_periods (
  budget_id    bigint NOT NULL REFERENCES pointsman.budgets (budget_id) ON DELETE CASCADE,
  period_start timestamptz NOT NULL,
  period_end   timestamptz,
  limit_micros bigint NOT NULL CHECK (limit_micros >= 0),
  spent_micros bigint NOT NULL CHECK (spent_micros >= 0),
  held_micros  bigint NOT NULL CHECK (held_micros >= 0),
  recorded_at  timestamptz NOT NULL,
  PRIMARY KEY (budget_id, period_start)
);
