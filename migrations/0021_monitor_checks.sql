-- Monitors say more than up or down: a quorum rule per monitor, a response time above which a
-- success counts as degraded, richer http checks (method, headers, body, status codes and
-- ranges, body text) and a new `dns` type. Existing monitors keep their behaviour: quorum
-- `majority`, never degraded, and http monitors a GET expecting their one status code.

alter table monitors drop constraint monitors_type_check;
alter table monitors add constraint monitors_type_check check (type in ('http', 'tcp', 'ssl_expiry', 'dns'));

alter table monitors drop constraint monitors_state_check;
alter table monitors add constraint monitors_state_check check (state in ('unknown', 'up', 'degraded', 'down'));

alter table monitors
  -- "majority", "any", "all", or an integer k >= 1 (jsonb, so it reads back as a string or a number).
  add column quorum jsonb not null default '"majority"' check (case jsonb_typeof(quorum)
    when 'string' then quorum #>> '{}' in ('majority', 'any', 'all')
    when 'number' then quorum::numeric >= 1 and quorum::numeric = trunc(quorum::numeric)
    else false end),
  add column degraded_above_ms integer check (degraded_above_ms between 1 and 60000),
  -- http only (null for the other types).
  add column method text check (method in ('GET', 'HEAD', 'POST')),
  -- Header name -> value, sent with every http check; the API never answers the values.
  add column headers jsonb check (headers is null or jsonb_typeof(headers) = 'object'),
  add column body text,
  -- Codes ("204") and ranges ("200-299"). expected_status_code stays, derived: the code when this
  -- is one single code, else null.
  add column expected_status_codes jsonb check (expected_status_codes is null or jsonb_typeof(expected_status_codes) = 'array'),
  add column body_contains text,
  add column body_not_contains text,
  -- dns only.
  add column dns_record_type text check (dns_record_type in ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS')),
  add column dns_expected_values jsonb check (dns_expected_values is null or jsonb_typeof(dns_expected_values) = 'array');

update monitors
set method = 'GET',
    expected_status_codes = jsonb_build_array(coalesce(expected_status_code, 200)::text),
    expected_status_code = coalesce(expected_status_code, 200)
where type = 'http';
