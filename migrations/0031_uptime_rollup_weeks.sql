-- Weekly sums of the daily uptime rollups, kept by triggers from the daily rows, so the uptime
-- of a period reads a row per week that starts in it, plus the period's days before the first
-- such week: 90 days of a component are about 16 rows instead of 90. A week is 7 UTC days from
-- a Monday.

create table uptime_rollup_weeks (
  component_id text not null references components (id) on delete cascade,
  week_start timestamptz not null,
  observed_seconds double precision not null,
  downtime_seconds double precision not null,
  primary key (week_start, component_id)
);

create function uptime_week_of(bucket_start timestamptz) returns timestamptz
  language sql immutable parallel safe
  as $$ select date_bin('7 days', bucket_start, timestamptz '1970-01-05 00:00:00+00') $$;

-- Sums the weeks from `first_week` through `last_week` again, of every component, from the
-- daily rows as they are now; a week left without days goes. Every component's, not only
-- those a statement touched: the aggregation writes all of them each time anyway, and set
-- operations keep the plan free of the row estimates a list of touched pairs would get wrong.
create function sum_uptime_weeks(first_week timestamptz, last_week timestamptz) returns void
  language sql as $$
  with sums as (
    select component_id, uptime_week_of(bucket_start) as week_start,
           sum(observed_seconds) as observed_seconds, sum(downtime_seconds) as downtime_seconds
    from uptime_rollups
    where granularity = 'day' and bucket_start >= first_week and bucket_start < last_week + interval '7 days'
    group by 1, 2
  ), emptied as (
    delete from uptime_rollup_weeks
    where week_start >= first_week and week_start <= last_week
      and (component_id, week_start) not in (select component_id, week_start from sums)
  )
  insert into uptime_rollup_weeks (component_id, week_start, observed_seconds, downtime_seconds)
  select component_id, week_start, observed_seconds, downtime_seconds from sums
  on conflict (week_start, component_id) do update
  set observed_seconds = excluded.observed_seconds, downtime_seconds = excluded.downtime_seconds
$$;

-- Once per statement, whatever the number of rows it wrote (the aggregation upserts a thousand
-- components' days in one).
create function recompute_uptime_weeks() returns trigger language plpgsql as $$
declare
  first_day timestamptz;
  last_day timestamptz;
begin
  if tg_op = 'INSERT' then
    select min(bucket_start), max(bucket_start) into first_day, last_day from new_rows where granularity = 'day';
  elsif tg_op = 'UPDATE' then
    select min(bucket_start), max(bucket_start) into first_day, last_day
    from (
      select bucket_start from new_rows where granularity = 'day'
      union all
      select bucket_start from old_rows where granularity = 'day'
    ) as days;
  else
    -- Days deleted with their component leave nothing to sum: its weeks go with it (on delete cascade).
    select min(bucket_start), max(bucket_start) into first_day, last_day
    from old_rows r where granularity = 'day' and exists (select from components c where c.id = r.component_id);
  end if;
  if first_day is not null then
    perform sum_uptime_weeks(uptime_week_of(first_day), uptime_week_of(last_day));
  end if;
  return null;
end
$$;

create trigger uptime_rollups_weeks_insert after insert on uptime_rollups
  referencing new table as new_rows for each statement execute function recompute_uptime_weeks();
create trigger uptime_rollups_weeks_update after update on uptime_rollups
  referencing old table as old_rows new table as new_rows for each statement execute function recompute_uptime_weeks();
create trigger uptime_rollups_weeks_delete after delete on uptime_rollups
  referencing old table as old_rows for each statement execute function recompute_uptime_weeks();

insert into uptime_rollup_weeks (component_id, week_start, observed_seconds, downtime_seconds)
select component_id, uptime_week_of(bucket_start), sum(observed_seconds), sum(downtime_seconds)
from uptime_rollups where granularity = 'day'
group by 1, 2;
