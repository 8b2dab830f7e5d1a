-- On-call alerts (issue 44): the events of a monitor's state, and the `pagerduty` and `opsgenie`
-- webhook formats.
--
-- `monitor.down`, `monitor.degraded` and `monitor.up` are written to the outbox by the ingest's
-- transaction that moves the monitor's state. A webhook receives them with `notify_on_monitor`:
-- off for the webhooks that exist (their chat channels are not flooded by every flap), on by
-- default for the on-call types.
--
-- The on-call types keep the key they authenticate with (PagerDuty's integration key, the
-- routing key of Events API v2; an Opsgenie API integration's key) in `secret`, the column that
-- every delivery already reads and no answer shows. They carry incident and monitor events only:
-- maintenance and component status are not pages.

alter table outbox_events drop constraint outbox_events_event_check;
alter table outbox_events add constraint outbox_events_event_check check (event in (
  'incident.created', 'incident.updated', 'incident.resolved',
  'maintenance.scheduled', 'maintenance.started', 'maintenance.completed', 'maintenance.reminder',
  'component.status_changed',
  'monitor.down', 'monitor.degraded', 'monitor.up'
));

alter table webhooks add column notify_on_monitor boolean not null default false;

alter table webhooks drop constraint webhooks_type_check;
alter table webhooks add constraint webhooks_type_check
  check (type in ('chat_a', 'chat_b', 'chat_c', 'generic', 'pagerduty', 'opsgenie'));

alter table webhooks drop constraint webhooks_check;
alter table webhooks add constraint webhooks_secret_check
  check ((type in ('generic', 'pagerduty', 'opsgenie')) = (secret is not null));

alter table webhooks add constraint webhooks_on_call_events
  check (type not in ('pagerduty', 'opsgenie') or not (notify_on_maintenance or notify_on_component_change));
