-- Configuration as code and importers (issue 45): the key a configuration document or an
-- importer calls an entity by (docs/configuration-as-code.md), kept with the entity it made, so
-- applying the document again (or importing the same source again) updates that entity instead
-- of making another. One key per entity and kind; an entity deleted elsewhere leaves a key that
-- `apply` finds dangling and makes afresh.
create table configuration_keys (
  kind text not null,
  key text not null,
  entity_id text not null,
  created_at timestamptz not null default now(),
  primary key (kind, key),
  unique (kind, entity_id)
);
