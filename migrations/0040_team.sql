-- A team (docs/authentication.md, "Roles"): every user and every API key has a role; users can be
-- disabled and invited; every admin write leaves one audit entry.
--
-- Existing users and keys become owners: before roles, each of them could do everything.
alter table users
  add column role text not null default 'owner' check (role in ('owner', 'admin', 'editor', 'viewer')),
  -- A disabled user cannot sign in, their sessions are deleted and their keys refused.
  add column disabled_at timestamptz;

alter table api_keys
  add column role text not null default 'owner' check (role in ('owner', 'admin', 'editor', 'viewer')),
  -- The status pages the key may change; null for all of them.
  add column page_ids text[];

-- Sessions are listed to their user: when and from where each one started.
alter table sessions add column client_address text;

-- An invitation to join the team: a link of 72 hours, only its token's SHA-256 stored. Inviting
-- the same address again replaces the open invitation (one open per address).
create table invitations (
  id text primary key default gen_random_uuid()::text,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'editor', 'viewer')),
  token_hash bytea not null unique,
  invited_by text references users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz
);

create unique index invitations_open_email on invitations (email) where accepted_at is null;

-- The audit log: one entry per admin write, written in the write's own transaction. Nothing
-- updates an entry; only housekeeping deletes entries past AUDIT_RETENTION_DAYS.
create table audit_log (
  id text primary key default gen_random_uuid()::text,
  at timestamptz not null default clock_timestamp(),
  actor_type text not null check (actor_type in ('user', 'apiKey', 'system')),
  -- The user's or key's id (null for `system`, or a user or key deleted since); the name is kept as
  -- it was, so an entry still says who after they are gone.
  actor_id text,
  actor_name text not null,
  client_address text,
  operation text not null,
  target_type text not null,
  target_id text,
  target_name text,
  -- `{ field: { before, after } }`, secrets never written.
  changes jsonb not null default '{}'
);

create index audit_log_at on audit_log (at desc, id desc);
create index audit_log_target on audit_log (target_type, target_id, at desc, id desc);
create index audit_log_actor on audit_log (actor_id, at desc, id desc);

create function audit_log_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'audit log entries cannot be changed';
end
$$;

create trigger audit_log_no_update before update on audit_log
  for each row execute function audit_log_immutable();

-- The addresses each API key was used from, so a key's first use from a new one is audited once.
create table api_key_addresses (
  api_key_id text not null references api_keys (id) on delete cascade,
  address text not null,
  first_seen_at timestamptz not null default now(),
  primary key (api_key_id, address)
);
