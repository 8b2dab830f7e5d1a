-- Runs a region did not measure: its probes took the job more than one interval late (all
-- dead, none, or all busy) and recorded a miss instead of running it. A (job, region) has at
-- most one stored result or one miss, never both: ingest stores a miss only when no result is
-- stored, and a result arriving later deletes the miss. Kept RESULTS_RETENTION_DAYS, like results.

create table missed_checks (
  job_id text not null,
  region text not null,
  monitor_id text not null,
  probe text not null,
  scheduled_at timestamptz not null,
  -- When the probe gave the job up.
  recorded_at timestamptz not null,
  reason text not null,
  primary key (job_id, region)
);

create index missed_checks_by_monitor on missed_checks (monitor_id, scheduled_at desc);
create index missed_checks_by_time on missed_checks (scheduled_at);
