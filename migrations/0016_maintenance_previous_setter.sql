-- Who had set the status a window remembers (components.status_set_by, migration 0010), so that
-- the window's end gives the status back to whoever was in charge of it: an outage the monitors
-- found stays theirs to clear. Null for rows remembered before this column: the operator's.
alter table maintenance_components
  add column previous_status_set_by text check (previous_status_set_by in ('operator', 'monitors'));
