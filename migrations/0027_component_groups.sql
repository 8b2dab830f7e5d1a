-- Component groups: the public page shows a group's public components under it, with the
-- worst of their statuses. A private group is not shown; its public components still are,
-- ungrouped. Deleting a group ungroups its components (they are not deleted with it).
create table component_groups (
  id text primary key default gen_random_uuid()::text,
  name text not null,
  description text not null default '',
  display_order integer not null default 0,
  is_public boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index component_groups_display_order on component_groups (display_order, name);

alter table components
  add column group_id text references component_groups (id) on delete set null;

create index components_group on components (group_id) where group_id is not null;
