-- Incidents opened by monitors, and drafts.
--
-- `source` says who opened an incident; `monitor_id` the monitor that did (a deleted monitor
-- leaves its incident to the operators). `automation` is null for manual incidents, `active`
-- while the automation may still move the incident's status and resolve it, `handed_over` once
-- an operator has edited, updated or resolved it. `monitor_down_since` is the outage the incident
-- covers (the monitor's state_changed_at when it went down); `monitor_up_since` is set while the
-- monitor has recovered and the incident waits out the monitor's resolve_after_seconds;
-- `monitor_relapses` counts the relapses it has told (after the first, they are told no sooner
-- than 5 minutes after the automation's last update, `monitor_noted_at`).
--
-- A draft (`published = false`) is never public: `is_public` also requires `published`.
alter table incidents
  add column source text not null default 'manual' check (source in ('manual', 'monitor')),
  add column monitor_id text references monitors (id) on delete set null,
  add column published boolean not null default true,
  add column automation text check (automation in ('active', 'handed_over')),
  add column monitor_down_since timestamptz,
  add column monitor_up_since timestamptz,
  add column monitor_relapses integer not null default 0,
  add column monitor_noted_at timestamptz,
  add check ((source = 'manual') = (automation is null));

-- One open automatic incident per monitor, whichever instance opens it.
create unique index incidents_open_per_monitor on incidents (monitor_id)
  where source = 'monitor' and status <> 'resolved';
-- The automation's pass reads the monitor's incidents, open or the latest resolved.
create index incidents_monitor on incidents (monitor_id, monitor_down_since) where source = 'monitor';

alter table monitors
  add column incident_policy text not null default 'off' check (incident_policy in ('off', 'draft', 'publish')),
  add column incident_template_id text references incident_templates (id) on delete set null,
  add column resolve_after_seconds integer not null default 300 check (resolve_after_seconds between 0 and 86400);

create index monitors_incident_policy on monitors (id) where incident_policy <> 'off';
