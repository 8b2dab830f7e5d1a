-- Incidents and maintenance windows keep their own visibility. An administrator decides it by
-- the components the item names (public when it names none or at least one public component),
-- and again for the items naming a component whose `is_public` changes. Deleting a component
-- removes its links but leaves the flag alone: an item never turns public by losing its last
-- private component. No default: whoever writes an item decides.
-- Existing items get the rule in force until now.

alter table incidents add column is_public boolean;
update incidents i
set is_public = not exists (select from incident_components ic where ic.incident_id = i.id)
  or exists (select from incident_components ic join components c on c.id = ic.component_id
             where ic.incident_id = i.id and c.is_public);
alter table incidents alter column is_public set not null;

alter table maintenance_windows add column is_public boolean;
update maintenance_windows m
set is_public = not exists (select from maintenance_components mc where mc.maintenance_id = m.id)
  or exists (select from maintenance_components mc join components c on c.id = mc.component_id
             where mc.maintenance_id = m.id and c.is_public);
alter table maintenance_windows alter column is_public set not null;
