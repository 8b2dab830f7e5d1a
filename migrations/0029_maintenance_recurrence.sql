-- Recurring maintenance. Every occurrence of a series is a window of its own; it carries the
-- series' rule (`recurrence`, jsonb `{ frequency, interval, until?, count? }`), `series_id` (the
-- first occurrence's id) and `occurrence`, its place in the series (0 for the first). One-off
-- windows have none of them. The next occurrence is created when the previous one starts.
alter table maintenance_windows
  add column recurrence jsonb check (recurrence is null or jsonb_typeof(recurrence) = 'object'),
  add column series_id text references maintenance_windows (id),
  add column occurrence integer,
  add check ((recurrence is null) = (series_id is null) and (series_id is null) = (occurrence is null));

-- One window per place in a series, whichever instance creates it.
create unique index maintenance_windows_series on maintenance_windows (series_id, occurrence)
  where series_id is not null;
