-- Response times by region: each monitor's successful checks rolled up per region and hour, and
-- per region and UTC day, as ingest stores them (src/domain/ResponseTimes.ts). `buckets` counts
-- durations in fixed log-spaced buckets (src/domain/ResponseTimeHistogram.ts: bucket 0 below
-- 1 ms, then eight per doubling up to about 60 s, then one for slower), trailing empty buckets
-- left out; rows are merged by adding counts, so percentiles of any period come from these rows
-- without rescanning check_results. Each timing phase keeps its sum and count for its mean.
-- Housekeeping deletes hourly rows after 8 days and daily rows after 90.
--
-- Ingest does not touch the rollups: in its transaction it appends each successful result's
-- measures to `response_time_pending`, and the ingest role's fold (every 10 s) deletes pending
-- rows in chunks and adds them to the rollups in the transaction that deletes them, so each is
-- counted exactly once. A heap without keys or indexes, so the append costs ingest little; the
-- fold takes rows by ctid with SKIP LOCKED, so several instances fold at once. No foreign key:
-- the fold drops the rows of monitors deleted meanwhile.

create table response_time_rollups (
  monitor_id text not null references monitors (id) on delete cascade,
  granularity text not null check (granularity in ('hour', 'day')),
  bucket_start timestamptz not null,
  region text not null,
  count integer not null,
  sum_ms double precision not null,
  min_ms double precision not null,
  max_ms double precision not null,
  buckets integer[] not null,
  dns_sum_ms double precision not null,
  dns_count integer not null,
  connect_sum_ms double precision not null,
  connect_count integer not null,
  tls_sum_ms double precision not null,
  tls_count integer not null,
  first_byte_sum_ms double precision not null,
  first_byte_count integer not null,
  primary key (monitor_id, granularity, bucket_start, region)
);

create index response_time_rollups_by_age on response_time_rollups (granularity, bucket_start);

create table response_time_pending (
  monitor_id text not null,
  region text not null,
  scheduled_at timestamptz not null,
  duration_ms double precision not null,
  dns_ms double precision,
  connect_ms double precision,
  tls_ms double precision,
  first_byte_ms double precision
);
