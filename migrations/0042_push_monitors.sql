-- Push (heartbeat) monitors and the check types of the same release. A push monitor is not run by
-- probes: the job it watches calls its secret URL. Only the token's SHA-256 is stored (hex, unique:
-- the push endpoint finds the monitor by it); the token itself is shown once, at creation or rotation.
-- `grace_seconds`: how long after its interval a push may still arrive before the run fails.

alter table monitors drop constraint monitors_type_check;
alter table monitors add constraint monitors_type_check check (
  type in ('http', 'tcp', 'ssl_expiry', 'dns', 'push', 'icmp', 'grpc', 'postgres', 'mysql', 'redis', 'mqtt', 'amqp')
);

alter table monitors
  add column push_token_hash text unique,
  add column grace_seconds integer check (grace_seconds between 0 and 86400),
  add constraint monitors_push_fields check ((type = 'push') = (push_token_hash is not null and grace_seconds is not null));
