-- The organization profile (one per deployment) and the components it publishes.

create table organizations (
  id text primary key default gen_random_uuid()::text,
  -- Enforces one organization per deployment, even when instances start together.
  singleton boolean not null default true unique check (singleton),
  name text not null,
  logo_url text,
  brand_color text not null,
  timezone text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table components (
  id text primary key default gen_random_uuid()::text,
  name text not null,
  description text not null default '',
  status text not null default 'operational'
    check (status in ('operational', 'degraded', 'partial_outage', 'major_outage', 'maintenance')),
  display_order integer not null default 0,
  is_public boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index components_display_order on components (display_order, name);
