-- Webhooks, their deliveries (one per event and webhook, retried on a schedule) and the log
-- of every attempt. Numbers 0002-0004 belong to other issues.

create table webhooks (
  id text primary key default gen_random_uuid()::text,
  name text not null,
  url text not null,
  type text not null check (type in ('chat_a', 'chat_b', 'chat_c', 'generic')),
  is_active boolean not null default true,
  -- 64 hex characters for generic webhooks, null for chat types.
  secret text check ((type = 'generic') = (secret is not null)),
  notify_on_incident boolean not null default true,
  notify_on_maintenance boolean not null default true,
  notify_on_component_change boolean not null default true,
  -- A JSON array of component ids, or null for every component.
  component_ids jsonb check (component_ids is null or jsonb_typeof(component_ids) = 'array'),
  consecutive_failures integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- One row per (event, webhook). Its id is the delivery id (`webhook-id` header), the same on
-- every retry. The event is stored as rendered input so a retry needs nothing else.
create table webhook_deliveries (
  id text primary key default gen_random_uuid()::text,
  event_id text not null,
  event_name text not null,
  event jsonb not null,
  webhook_id text not null references webhooks (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  -- When a pending delivery is due; a claim pushes it forward as a lease.
  next_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (event_id, webhook_id)
);

create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';

-- Every attempt, including the test sends of POST /admin/webhooks/:id/test (delivery_id null).
create table webhook_delivery_attempts (
  id text primary key default gen_random_uuid()::text,
  webhook_id text not null references webhooks (id) on delete cascade,
  delivery_id text references webhook_deliveries (id) on delete cascade,
  event_id text,
  event text not null,
  test boolean not null default false,
  attempt integer not null,
  success boolean not null,
  status_code integer,
  error text,
  duration_ms integer not null,
  attempted_at timestamptz not null default now()
);

create index webhook_delivery_attempts_recent on webhook_delivery_attempts (webhook_id, attempted_at desc);
