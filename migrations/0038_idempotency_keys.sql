-- The Idempotency-Key of admin POSTs (docs/api.md, "Retries: Idempotency-Key"): one row per key a
-- principal sent in the last 24 hours. Nothing in it is readable without the client's key:
--
-- - `id` is an HMAC-SHA256, under a server secret, of the principal and the key;
-- - `fingerprint` is an HMAC-SHA256 of the method, path and canonical JSON body, and `answer` the
--   stored answer sealed with AES-256-GCM, both under keys derived (HKDF) from the client's key and
--   that secret, so the answers that carry a secret shown once (a new API key, a webhook's secret)
--   stay unreadable at rest.
--
-- A request claims its row before the handler runs (`answer` null, `claim` its token, `claimed_at`)
-- and completes it with the answer after; a claim older than the lease (60 s) is taken over by the
-- next retry. Housekeeping deletes rows once `expires_at` has passed.
create table idempotency_keys (
  id bytea primary key,
  fingerprint bytea not null,
  claim text not null,
  claimed_at timestamptz not null,
  answer bytea,
  expires_at timestamptz not null
);

create index idempotency_keys_expires_at on idempotency_keys (expires_at);
