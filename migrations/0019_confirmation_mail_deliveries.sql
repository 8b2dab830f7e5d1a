-- The confirmation mail of a subscription is delivered from the database like notification
-- mail, so an SMTP outage delays it instead of losing it. The subscriber keeps only the hash of
-- the link's token, so the mail's row keeps the token in clear, and only until the mail is sent
-- or given up; confirming the subscription deletes the row.

alter table mail_deliveries
  add column kind text not null default 'notification' check (kind in ('notification', 'confirmation')),
  add column verify_token text,
  alter column event_id drop not null,
  alter column event drop not null;

alter table mail_deliveries add constraint mail_deliveries_kind_fields check (
  case kind
    when 'notification' then event_id is not null and event is not null and verify_token is null
    else event_id is null and event is null
  end);
