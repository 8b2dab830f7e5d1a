-- When ingest stored each check result, so the delay from a run's `scheduled_at` to its result
-- being stored (probe, Redis, ingest together) can be measured by operators and benchmarks in
-- SQL. `now()` is the storing transaction's start: a batch's results share it, and it is earlier
-- than the commit by the time the transaction takes. `now()` is not volatile, so adding the column
-- rewrites nothing: PostgreSQL (11 and later) evaluates it once and keeps the value in the
-- catalog for the rows already there, which read the time this migration ran.
alter table check_results add column stored_at timestamptz not null default now();
