-- The dispatcher: webhook deliveries go out in the order their events were enqueued, and
-- subscriber mail is delivered from the database like webhooks, one row per (event,
-- subscriber), so a crash or a failed send loses no mail and a restart sends none twice.
-- Number 0010 is left to the check scheduler and ingest.

alter table webhook_deliveries add column sequence bigserial;
drop index webhook_deliveries_due;
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, sequence) where status = 'pending';

create table mail_deliveries (
  id text primary key default gen_random_uuid()::text,
  sequence bigserial,
  event_id text not null,
  -- The event as NotificationEvent encodes it, so a retry needs nothing else.
  event jsonb not null,
  subscriber_id text not null references subscribers (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  -- When a pending mail is due; a claim pushes it forward as a lease.
  next_attempt_at timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (event_id, subscriber_id)
);

create index mail_deliveries_due on mail_deliveries (next_attempt_at, sequence) where status = 'pending';
