-- Incident templates: what opening an incident from one fills in. Names are unique regardless
-- of case (a second "Database down" is refused with 409).
create table incident_templates (
  id text primary key default gen_random_uuid()::text,
  name text not null,
  title text not null,
  message text not null,
  severity text not null check (severity in ('none', 'minor', 'major', 'critical')),
  status text not null check (status in ('investigating', 'identified', 'monitoring')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create unique index incident_templates_name on incident_templates (lower(name));

-- Deleting a component takes it out of the templates that named it.
create table incident_template_components (
  template_id text not null references incident_templates (id) on delete cascade,
  component_id text not null references components (id) on delete cascade,
  primary key (template_id, component_id)
);

create index incident_template_components_component on incident_template_components (component_id);
