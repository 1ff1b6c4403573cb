-- What a retention pass over session-token's tables costs: 100,000 sessions with 10 refresh tokens
-- each (1,000,000 rows), half rotated over 30 days ago, 2,000 sessions revoked 40 days ago; then the
-- two statements RetentionSweeper sends, twice (the second pass finds nothing due).
-- psql -h 127.0.0.1 -p <port> -U mfa -d postgres -f scripts/retention-cost.sql   (a scratch database, dropped at the end)
\timing on
DROP DATABASE IF EXISTS sweepcost;
CREATE DATABASE sweepcost;
\c sweepcost
CREATE TABLE session_families (family_id text PRIMARY KEY, local_id text NOT NULL, sign_in_provider text NOT NULL,
  second_factor text, second_factor_identifier text, auth_time timestamptz NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz, session_claims text, revoked_reason text);
CREATE INDEX session_families_factor ON session_families (local_id, second_factor_identifier);
CREATE TABLE refresh_tokens (token_hash bytea PRIMARY KEY, family_id text NOT NULL REFERENCES session_families ON DELETE CASCADE,
  local_id text NOT NULL, rotated_at timestamptz, revoked_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
INSERT INTO session_families (family_id, local_id, sign_in_provider, auth_time)
  SELECT 'f' || n, 'u' || n, 'password', now() - interval '60 days' FROM generate_series(1, 100000) n;
INSERT INTO refresh_tokens (token_hash, family_id, local_id, rotated_at)
  SELECT sha256(('t' || f || '-' || k)::bytea), 'f' || f, 'u' || f,
         CASE WHEN k < 10 THEN now() - (k * interval '6 days') END
  FROM generate_series(1, 100000) f, generate_series(1, 10) k;
UPDATE session_families SET revoked_at = now() - interval '40 days', revoked_reason = 'factor' WHERE family_id IN (SELECT 'f' || n FROM generate_series(1, 100000, 50) n);
ANALYZE;
SELECT pg_size_pretty(pg_total_relation_size('refresh_tokens')) AS tokens_size;
-- The sweeper's two statements (retention 30 days), as RetentionSweeper sends them.
WITH deleted AS (DELETE FROM refresh_tokens WHERE rotated_at < now() - make_interval(secs => 2592000) RETURNING 1) SELECT count(*) FROM deleted;
WITH deleted AS (DELETE FROM session_families WHERE revoked_at < now() - make_interval(secs => 2592000) RETURNING 1) SELECT count(*) FROM deleted;
-- A pass with nothing due (the steady state between passes).
WITH deleted AS (DELETE FROM refresh_tokens WHERE rotated_at < now() - make_interval(secs => 2592000) RETURNING 1) SELECT count(*) FROM deleted;
WITH deleted AS (DELETE FROM session_families WHERE revoked_at < now() - make_interval(secs => 2592000) RETURNING 1) SELECT count(*) FROM deleted;
\c postgres
DROP DATABASE sweepcost;
