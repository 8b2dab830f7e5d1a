-- The probe registry: every probe that sent a heartbeat, keyed (region, name). The region is the
-- results stream's the heartbeat came on, never one the probe claims. A probe restarting under
-- the same name updates its row. last_seen_at is the server's clock at ingest (a probe's clock may
-- be wrong); sent_at is the probe's, kept to tell clock skew. Housekeeping deletes rows silent for
-- 7 days.

create table probes (
  region text not null,
  name text not null,
  version text not null,
  started_at timestamptz not null,
  sent_at timestamptz not null,
  last_seen_at timestamptz not null,
  concurrency integer not null,
  checks_last_minute integer not null,
  lag_ms integer not null,
  in_flight integer not null,
  primary key (region, name)
);

create index probes_by_last_seen on probes (last_seen_at);
