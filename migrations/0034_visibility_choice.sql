-- An item's visibility is the operator's choice, kept as chosen: nothing recomputes it from the
-- components that remain (src/persistence/Visibility.ts writes it, and nothing else does).
--
-- Incidents: `chosen_public` is the choice, kept while the incident is a draft; `is_public`, what
-- the public sees, follows from it and `published` and cannot be written. A draft's choice is
-- the one publishing it decided until now: from its components.
alter table incidents add column chosen_public boolean;
update incidents i
set chosen_public = case when i.published then i.is_public
  else not exists (select from incident_components ic where ic.incident_id = i.id)
    or exists (select from incident_components ic join components c on c.id = ic.component_id
               where ic.incident_id = i.id and c.is_public) end;
alter table incidents alter column chosen_public set not null;
alter table incidents drop column is_public;
alter table incidents add column is_public boolean generated always as (published and chosen_public) stored;

-- Templates keep theirs too: an incident opened from a template takes the template's choice,
-- not one recomputed from the components the template still names.
alter table incident_templates add column is_public boolean;
update incident_templates t
set is_public = not exists (select from incident_template_components tc where tc.template_id = t.id)
  or exists (select from incident_template_components tc join components c on c.id = tc.component_id
             where tc.template_id = t.id and c.is_public);
alter table incident_templates alter column is_public set not null;
