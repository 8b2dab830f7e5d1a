-- The postmortem of a resolved incident: one per incident, Markdown, a draft until published.
-- `published_at` is when it was first published; unpublishing keeps it, so publishing again shows
-- the original date.

create table incident_postmortems (
  incident_id text primary key references incidents (id) on delete cascade,
  body text not null check (char_length(body) between 1 and 50000),
  published boolean not null default false,
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (not published or published_at is not null)
);
