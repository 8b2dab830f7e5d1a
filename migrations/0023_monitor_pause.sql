-- A monitor can be paused: the scheduler leaves it out and ingest ignores late results of it.
-- Pausing forgets what its regions last found, so a resumed monitor starts from `unknown`, and
-- `resumed_at` keeps out the reports of runs scheduled before the resume.
alter table monitors
  add column paused boolean not null default false,
  add column resumed_at timestamptz;
