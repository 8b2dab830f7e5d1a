-- E-mail subscribers (double opt-in), the mail kept when no SMTP server is configured, and
-- the counters of rate limits shared by every API instance.

create table subscribers (
  id text primary key default gen_random_uuid()::text,
  -- Trimmed and lower-cased by the API.
  email text not null unique,
  -- SHA-256 (hex) of the pending verification token; null once verified.
  verify_token_hash text unique,
  verify_expires_at timestamptz,
  -- Kept in clear: every notification mail must carry it, and it can only unsubscribe.
  unsubscribe_token text not null,
  verified_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table mail_outbox_log (
  id text primary key default gen_random_uuid()::text,
  to_address text not null,
  subject text not null,
  text_body text not null,
  html_body text not null,
  headers jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);

-- Fixed windows: `hits` requests since `window_started_at` for a key such as
-- `subscribe:client:127.0.0.1`.
create table rate_limits (
  key text primary key,
  window_started_at timestamptz not null,
  hits integer not null
);
