-- Per-component subscriptions. A subscriber with `all_components` (every existing one) is mailed
-- about every public incident and window; one without is mailed about those naming one of its
-- components here, and about those naming no public component. Deleting a component drops it
-- from every subscriber's choice.

alter table subscribers add column all_components boolean not null default true;

create table subscriber_components (
  subscriber_id text not null references subscribers (id) on delete cascade,
  component_id text not null references components (id) on delete cascade,
  primary key (subscriber_id, component_id)
);

-- Deleting a component finds its rows without a scan.
create index subscriber_components_component on subscriber_components (component_id);
