-- Keys the service makes for itself and every instance shares: for now the HMAC key of the
-- device cookies that exempt known browsers from the account-wide sign-in ceiling
-- (docs/authentication.md#device-cookies). The first instance to need a key inserts 32 random
-- bytes; the others read them.

create table server_secrets (
  name text primary key,
  value bytea not null,
  created_at timestamptz not null default now()
);
