-- Counter windows know when they end, so sign-in back-off can double a window's length and
-- housekeeping can delete what has expired; unverified subscribers are found by link expiry.
-- The defaults serve instances of the previous version during a rolling upgrade, which insert
-- without the new column: until now every sign-in window lasted 15 minutes and every rate-limit
-- window one hour.

alter table signin_failures add column window_ends_at timestamptz not null default now() + interval '15 minutes';
update signin_failures set window_ends_at = window_started_at + interval '15 minutes';
create index signin_failures_window_ends on signin_failures (window_ends_at);

alter table rate_limits add column window_ends_at timestamptz not null default now() + interval '1 hour';
update rate_limits set window_ends_at = window_started_at + interval '1 hour';
create index rate_limits_window_ends on rate_limits (window_ends_at);

create index subscribers_unverified_expiry on subscribers (verify_expires_at) where verified_at is null;
