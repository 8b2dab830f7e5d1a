-- Maintenance reminders. The organization decides how many hours before a window's start its
-- readers are reminded (0: never). A window's `reminder_sent_at` is set in the transaction
-- that writes its `maintenance.reminder`, under the window's lock: one reminder per window,
-- whichever instance of the maintenance clock gets there first. A window created already
-- inside the reminder horizon is marked at creation (its `maintenance.scheduled` told the
-- readers); moving its start clears the mark, so it is reminded of the new start.
alter table organizations
  add column maintenance_reminder_hours integer not null default 24
    check (maintenance_reminder_hours between 0 and 720);

alter table maintenance_windows add column reminder_sent_at timestamptz;

-- Windows already inside the default horizon when reminders arrive were announced without one:
-- no burst of reminders at the first pass after the upgrade.
update maintenance_windows set reminder_sent_at = now()
where status = 'scheduled' and scheduled_start <= now() + interval '24 hours';

-- The windows the clock still has to remind about, by start.
create index maintenance_windows_awaiting_reminder on maintenance_windows (scheduled_start)
  where status = 'scheduled' and reminder_sent_at is null;

alter table outbox_events drop constraint outbox_events_event_check;
alter table outbox_events add constraint outbox_events_event_check check (event in (
  'incident.created', 'incident.updated', 'incident.resolved',
  'maintenance.scheduled', 'maintenance.started', 'maintenance.completed', 'maintenance.reminder',
  'component.status_changed'
));
