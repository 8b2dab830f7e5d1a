-- What the probe fleet found: raw check results (kept RESULTS_RETENTION_DAYS), each monitor's
-- state per region, and the monitor's overall state decided by region quorum.

create table check_results (
  job_id text not null,
  region text not null,
  monitor_id text not null,
  probe text not null,
  scheduled_at timestamptz not null,
  checked_at timestamptz not null,
  ok boolean not null,
  duration_ms double precision not null,
  dns_ms double precision,
  connect_ms double precision,
  tls_ms double precision,
  first_byte_ms double precision,
  status_code integer,
  error text,
  ssl_days_left integer,
  -- A job run twice (at-least-once delivery) is stored once per region.
  primary key (job_id, region)
);

create index check_results_by_monitor on check_results (monitor_id, scheduled_at desc);
create index check_results_by_time on check_results (scheduled_at);

create table monitor_region_state (
  monitor_id text not null references monitors (id) on delete cascade,
  region text not null,
  last_scheduled_at timestamptz not null,
  last_checked_at timestamptz not null,
  last_ok boolean not null,
  consecutive_failures integer not null,
  -- scheduled_at of the first failure of the current streak.
  failing_since timestamptz,
  last_status_code integer,
  last_error text,
  last_duration_ms double precision not null,
  primary key (monitor_id, region)
);

alter table monitors
  add column state text not null default 'unknown' check (state in ('unknown', 'up', 'down')),
  add column state_changed_at timestamptz;

-- Who last set a component's status. The ingest sets `status_page.actor` to 'monitors' in its
-- transaction; every other writer is an operator (API, maintenance). Monitors only move a
-- status they set themselves, or an operational one.
alter table components
  add column status_set_by text not null default 'operator' check (status_set_by in ('operator', 'monitors'));

create function record_status_actor() returns trigger language plpgsql as $$
begin
  if new.status is distinct from old.status then
    new.status_set_by := coalesce(nullif(current_setting('status_page.actor', true), ''), 'operator');
  end if;
  return new;
end
$$;

create trigger components_status_actor before update of status on components
  for each row execute function record_status_actor();
