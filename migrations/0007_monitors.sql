-- Monitors: what the probe fleet checks for each component.

create table monitors (
  id text primary key default gen_random_uuid()::text,
  component_id text not null references components (id) on delete cascade,
  type text not null check (type in ('http', 'tcp', 'ssl_expiry')),
  url text not null,
  interval_seconds integer not null check (interval_seconds between 10 and 86400),
  timeout_ms integer not null check (timeout_ms between 100 and 60000),
  expected_status_code integer check (expected_status_code between 100 and 599),
  failure_threshold integer not null check (failure_threshold between 1 and 10),
  -- null: every region that has a live probe.
  regions jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index monitors_component on monitors (component_id);
