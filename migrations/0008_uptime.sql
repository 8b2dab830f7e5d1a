-- Uptime: every status a component had (written by a trigger, so no code path can miss it),
-- the intervals its monitors were down (written by ingest), and hourly and daily rollups that
-- GET /status/uptime reads, so its cost never depends on how many checks were stored.

create table component_status_history (
  component_id text not null references components (id) on delete cascade,
  status text not null,
  started_at timestamptz not null
);

create index component_status_history_by_time on component_status_history (component_id, started_at);

create function record_component_status() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    insert into component_status_history (component_id, status, started_at)
    values (new.id, new.status, clock_timestamp());
  end if;
  return new;
end
$$;

create trigger components_status_history
  after insert or update of status on components
  for each row execute function record_component_status();

insert into component_status_history (component_id, status, started_at)
select id, status, created_at from components;

-- A monitor's down interval (quorum of regions failing); open while ended_at is null. Kept
-- when the monitor is deleted, so past uptime does not change.
create table monitor_downtime (
  id text primary key default gen_random_uuid()::text,
  monitor_id text not null,
  component_id text not null references components (id) on delete cascade,
  started_at timestamptz not null,
  ended_at timestamptz,
  check (ended_at is null or ended_at >= started_at)
);

create index monitor_downtime_by_component on monitor_downtime (component_id, started_at);
create unique index monitor_downtime_one_open on monitor_downtime (monitor_id) where ended_at is null;

create table uptime_rollups (
  component_id text not null references components (id) on delete cascade,
  granularity text not null check (granularity in ('hour', 'day')),
  bucket_start timestamptz not null,
  observed_seconds double precision not null,
  downtime_seconds double precision not null,
  primary key (granularity, bucket_start, component_id)
);

-- Changes dated in the past (a monitor found down after several failed checks, an interval
-- closed at its first success) mark the rollups from that moment for recomputation.
create table uptime_dirty (
  id bigserial primary key,
  since timestamptz not null
);

create function mark_uptime_dirty() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into uptime_dirty (since) values (old.started_at);
    return old;
  end if;
  if tg_op = 'UPDATE' then
    insert into uptime_dirty (since) values (least(old.started_at, new.started_at, coalesce(new.ended_at, new.started_at)));
  else
    insert into uptime_dirty (since) values (new.started_at);
  end if;
  return new;
end
$$;

create trigger monitor_downtime_dirty after insert or update or delete on monitor_downtime
  for each row execute function mark_uptime_dirty();

create function mark_status_dirty() returns trigger language plpgsql as $$
begin
  insert into uptime_dirty (since) values (case when tg_op = 'DELETE' then old.started_at else new.started_at end);
  return null;
end
$$;

create trigger component_status_history_dirty after insert or delete on component_status_history
  for each row execute function mark_status_dirty();
