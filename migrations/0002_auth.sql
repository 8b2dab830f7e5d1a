-- Administrators, their sessions, API keys, and sign-in throttling. No secret is stored in
-- plaintext: passwords are scrypt hashes, session tokens and API keys SHA-256 digests.

create table users (
  id text primary key default gen_random_uuid()::text,
  email text not null unique,
  name text not null,
  password_hash text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table sessions (
  id text primary key default gen_random_uuid()::text,
  token_hash bytea not null unique,
  user_id text not null references users (id) on delete cascade,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  expires_at timestamptz not null
);

create index sessions_user on sessions (user_id);

create table api_keys (
  id text primary key default gen_random_uuid()::text,
  name text not null,
  prefix text not null,
  key_hash bytea not null unique,
  created_by text references users (id) on delete set null,
  created_at timestamptz not null,
  last_used_at timestamptz,
  expires_at timestamptz
);

create index api_keys_prefix on api_keys (prefix);

-- Failed sign-ins per account and per client address in a fixed window, shared by all instances.
create table signin_failures (
  key text primary key,
  failures integer not null,
  window_started_at timestamptz not null
);
