-- Incidents with their timeline, maintenance windows, and the outbox of events.

create table incidents (
  id text primary key default gen_random_uuid()::text,
  title text not null,
  status text not null check (status in ('investigating', 'identified', 'monitoring', 'resolved')),
  severity text not null check (severity in ('none', 'minor', 'major', 'critical')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  resolved_at timestamptz
);

create index incidents_created_at on incidents (created_at desc, id desc);

-- Deleting a component takes it out of the incidents that named it.
create table incident_components (
  incident_id text not null references incidents (id) on delete cascade,
  component_id text not null references components (id) on delete cascade,
  primary key (incident_id, component_id)
);

create index incident_components_component on incident_components (component_id);

-- The timeline; the initial message is the first entry. `seq` orders entries made in the same instant.
create table incident_updates (
  id text primary key default gen_random_uuid()::text,
  seq bigserial not null,
  incident_id text not null references incidents (id) on delete cascade,
  status text not null check (status in ('investigating', 'identified', 'monitoring', 'resolved')),
  message text not null,
  created_at timestamptz not null default now()
);

create index incident_updates_incident on incident_updates (incident_id, seq);

create table maintenance_windows (
  id text primary key default gen_random_uuid()::text,
  title text not null,
  description text not null default '',
  status text not null default 'scheduled'
    check (status in ('scheduled', 'in_progress', 'completed', 'cancelled')),
  scheduled_start timestamptz not null,
  scheduled_end timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (scheduled_end > scheduled_start)
);

-- The clock looks for windows due to start or end.
create index maintenance_windows_due on maintenance_windows (status, scheduled_start, scheduled_end);

-- `previous_status` is what the component showed when the window started, restored at its end.
create table maintenance_components (
  maintenance_id text not null references maintenance_windows (id) on delete cascade,
  component_id text not null references components (id) on delete cascade,
  previous_status text
    check (previous_status in ('operational', 'degraded', 'partial_outage', 'major_outage', 'maintenance')),
  primary key (maintenance_id, component_id)
);

create index maintenance_components_component on maintenance_components (component_id);

-- Events written in the transaction of the change they describe. `payload` is the event's `data`;
-- `component_ids` the components it is about (webhook filter). A dispatcher claims rows with
-- FOR UPDATE SKIP LOCKED, setting claimed_at, and sets delivered_at when done.
create table outbox_events (
  id bigserial primary key,
  event text not null check (event in (
    'incident.created', 'incident.updated', 'incident.resolved',
    'maintenance.scheduled', 'maintenance.started', 'maintenance.completed',
    'component.status_changed'
  )),
  payload jsonb not null,
  component_ids text[] not null default '{}',
  created_at timestamptz not null default now(),
  claimed_at timestamptz,
  delivered_at timestamptz,
  attempts integer not null default 0
);

create index outbox_events_pending on outbox_events (id) where delivered_at is null;
